package io.lmwarden.bench.client;

import io.vertx.core.buffer.Buffer;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Splits a byte stream into SSE lines and hands on the payload of each {@code data:} line. Chunks may
 * end mid-line (or mid-character), so an unfinished tail is carried to the next chunk as bytes.
 */
final class SseLineSplitter {

    private final Consumer<String> dataHandler;
    private final Consumer<String> commentHandler;
    private byte[] tail = new byte[0];

    SseLineSplitter(Consumer<String> dataHandler) {
        this(dataHandler, c -> { });
    }

    /** @param commentHandler gets the text of each comment line (one starting with ':'), without the colon */
    SseLineSplitter(Consumer<String> dataHandler, Consumer<String> commentHandler) {
        this.dataHandler = dataHandler;
        this.commentHandler = commentHandler;
    }

    void feed(Buffer chunk) {
        byte[] bytes = tail.length == 0 ? chunk.getBytes() : concat(tail, chunk.getBytes());
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                int end = i > start && bytes[i - 1] == '\r' ? i - 1 : i;
                line(bytes, start, end);
                start = i + 1;
            }
        }
        tail = start == bytes.length ? new byte[0] : java.util.Arrays.copyOfRange(bytes, start, bytes.length);
    }

    /** Handles a last line that had no newline. */
    void finish() {
        if (tail.length > 0) {
            line(tail, 0, tail.length);
            tail = new byte[0];
        }
    }

    private void line(byte[] bytes, int start, int end) {
        if (end - start >= 5 && bytes[start] == 'd' && bytes[start + 1] == 'a' && bytes[start + 2] == 't'
                && bytes[start + 3] == 'a' && bytes[start + 4] == ':') {
            int from = start + 5;
            if (from < end && bytes[from] == ' ') {
                from++;
            }
            dataHandler.accept(new String(bytes, from, end - from, StandardCharsets.UTF_8));
        } else if (end > start && bytes[start] == ':') {
            commentHandler.accept(new String(bytes, start + 1, end - start - 1, StandardCharsets.UTF_8).trim());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
