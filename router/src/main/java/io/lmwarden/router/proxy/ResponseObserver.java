package io.lmwarden.router.proxy;

import io.lmwarden.router.session.ApiFlavor;
import io.vertx.core.buffer.Buffer;

/**
 * Watches a response go by without holding it: finds whether the stream really completed
 * ({@code data: [DONE]}, Anthropic's {@code message_stop}, the Responses API's {@code response.completed})
 * and the usage figures the engine reported. Works line by line across chunk boundaries; the keys it
 * looks for are ASCII, so bytes are read as Latin-1 without decoding UTF-8.
 */
public final class ResponseObserver {

    private static final String[] KEYS = {"\"cached_tokens\"", "\"cache_read_input_tokens\"", "\"prompt_tokens\"",
            "\"input_tokens\"", "\"completion_tokens\"", "\"output_tokens\""};
    private static final int MAX_LINE = 1 << 20;

    private final ApiFlavor flavor;
    private final StringBuilder line = new StringBuilder(256);
    private final long[] values = {-1, -1, -1, -1, -1, -1};
    private boolean completed;
    private boolean errorSeen;
    private long bytes;

    public ResponseObserver(ApiFlavor flavor) {
        this.flavor = flavor;
    }

    public void accept(Buffer chunk) {
        byte[] b = chunk.getBytes();
        bytes += b.length;
        for (byte x : b) {
            char c = (char) (x & 0xff);
            if (c == '\n') {
                endLine();
            } else if (line.length() < MAX_LINE) {
                line.append(c);
            }
        }
    }

    /** The response ended: a non-streaming body has no trailing newline. */
    public void end() {
        endLine();
    }

    private void endLine() {
        if (line.length() == 0) {
            return;
        }
        String l = line.toString();
        line.setLength(0);
        if (l.startsWith("data: [DONE]") || l.startsWith("event: message_stop") || l.contains("\"type\":\"response.completed\"")) {
            completed = true;
        }
        if (l.startsWith("event: error") || l.startsWith("data: {\"error\"")) {
            errorSeen = true;
        }
        for (int k = 0; k < KEYS.length; k++) {
            int at = l.lastIndexOf(KEYS[k]);
            if (at >= 0) {
                long v = numberAfter(l, at + KEYS[k].length());
                if (v >= 0) {
                    values[k] = v;
                }
            }
        }
    }

    private static long numberAfter(String s, int from) {
        int i = from;
        while (i < s.length() && (s.charAt(i) == ':' || s.charAt(i) == ' ')) {
            i++;
        }
        long v = 0;
        int digits = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            v = v * 10 + (s.charAt(i) - '0');
            i++;
            digits++;
        }
        return digits == 0 ? -1 : v;
    }

    public boolean completed() {
        return completed;
    }

    public boolean errorSeen() {
        return errorSeen;
    }

    public long bytes() {
        return bytes;
    }

    /** Cached prompt tokens the engine reported, or -1 when it reported none. */
    public long cachedTokens() {
        return values[0] >= 0 ? values[0] : values[1];
    }

    /** Prompt tokens the engine reported, or -1. Anthropic's {@code input_tokens} excludes cache reads. */
    public long promptTokens() {
        if (values[2] >= 0) {
            return values[2];
        }
        if (values[3] >= 0) {
            return flavor.anthropic() && values[1] > 0 ? values[3] + values[1] : values[3];
        }
        return -1;
    }

    public long outputTokens() {
        return values[4] >= 0 ? values[4] : values[5];
    }
}
