package io.lmwarden.router.session;

/**
 * The canonical text of one request's prompt, kept only until the prefix-break diagnosis has compared the request
 * with its session's earlier steps: then released, so that a request's text is not held while it streams. Never
 * logged; the diagnosis takes a short excerpt of it where a prompt changed.
 */
public final class PromptText {

    /** A request without text to look at (built by hand, or already released). */
    public static final PromptText NONE = new PromptText(null);

    private volatile CharSequence text;

    PromptText(CharSequence text) {
        this.text = text;
    }

    /** Whether the text is still here. */
    public boolean available() {
        return text != null;
    }

    /** Up to {@code maxChars} characters from {@code fromChar}; empty once released or past the end. */
    public String excerpt(int fromChar, int maxChars) {
        CharSequence t = text;
        if (t == null || fromChar < 0 || fromChar >= t.length()) {
            return "";
        }
        return t.subSequence(fromChar, Math.min(t.length(), fromChar + maxChars)).toString();
    }

    /** A 64-bit hash of the characters [fromChar, toChar) alone, whatever precedes them; 0 once released. */
    public long hashOf(int fromChar, int toChar) {
        CharSequence t = text;
        if (t == null) {
            return 0;
        }
        int from = Math.max(0, Math.min(fromChar, t.length()));
        int to = Math.max(from, Math.min(toChar, t.length()));
        return CanonicalPrompt.hashBlock(0x5851F42D4C957F2DL, t, from, to - from);
    }

    /** Drops the text: nothing reads it after the diagnosis. */
    public void release() {
        text = null;
    }
}
