package io.lmwarden.router.session;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the canonical text of a prompt segment by segment, the way a chat template would render
 * it, and turns it into a {@link PromptShape}. Hashing runs on the fly over fixed-size blocks so a
 * large prompt is read once.
 */
public final class CanonicalPrompt {

    private final StringBuilder text;
    private final List<PromptSegment> segments = new ArrayList<>();
    /** Mixed into every hash: a tenant's prompts hash apart from the same text of another tenant. */
    private final long seed;

    public CanonicalPrompt() {
        this(0);
    }

    public CanonicalPrompt(long seed) {
        this(seed, 256);
    }

    /** @param expectedChars how long the text will be, about: the buffer is sized once */
    public CanonicalPrompt(long seed, int expectedChars) {
        this.seed = seed;
        this.text = new StringBuilder(Math.max(16, expectedChars));
    }

    /** Starts a named segment; its text follows with {@link #append}. */
    public CanonicalPrompt segment(String name, String role) {
        int start = text.length();
        text.append("<|").append(role).append("|>\n");
        segments.add(new PromptSegment(name, start, text.length()));
        return this;
    }

    public CanonicalPrompt append(CharSequence s) {
        text.append(s);
        return this;
    }

    public int length() {
        return text.length();
    }

    public CharSequence text() {
        return text;
    }

    public PromptShape shape() {
        int blocks = text.length() / PromptShape.BLOCK_CHARS;
        long[] hashes = new long[blocks];
        long parent = 0x9E3779B97F4A7C15L ^ seed;
        for (int b = 0; b < blocks; b++) {
            parent = hashBlock(parent, text, b * PromptShape.BLOCK_CHARS, PromptShape.BLOCK_CHARS);
            hashes[b] = parent;
        }
        return new PromptShape(hashes, text.length(), PromptShape.tokensForChars(text.length()), segments);
    }

    /** A 64-bit hash of the characters [0, endChar), for fingerprints of a conversation's fixed start. */
    public long hashOfPrefix(int endChar) {
        return hashBlock(0xC2B2AE3D27D4EB4FL ^ seed, text, 0, Math.min(endChar, text.length()));
    }

    /**
     * Hashes of the characters [0, end) for each of the ascending {@code ends}, in one pass: the
     * prompt through each of its messages, for lineage keys.
     */
    public long[] hashesOfPrefixes(int[] ends) {
        long[] out = new long[ends.length];
        long h = 0xC2B2AE3D27D4EB4FL ^ 0xcbf29ce484222325L ^ seed;
        int at = 0;
        for (int k = 0; k < ends.length; k++) {
            int end = Math.min(ends[k], text.length());
            for (; at < end; at++) {
                h ^= text.charAt(at);
                h *= 0x100000001b3L;
            }
            out[k] = finish(h);
        }
        return out;
    }

    static long hashBlock(long seed, CharSequence s, int from, int len) {
        // FNV-1a over UTF-16 units, then a murmur-style finaliser so nearby inputs spread out.
        long h = seed ^ 0xcbf29ce484222325L;
        for (int i = from, end = from + len; i < end; i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return finish(h);
    }

    /** A murmur-style finaliser so nearby inputs spread out. */
    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
