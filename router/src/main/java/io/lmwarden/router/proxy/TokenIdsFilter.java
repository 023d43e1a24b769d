package io.lmwarden.router.proxy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.vertx.core.buffer.Buffer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads the prompt's token ids ({@code prompt_token_ids}) out of an answer the router asked them for, and, when the
 * client did not ask for them itself, takes them out of what the client gets ({@code prompt_token_ids} and each
 * choice's {@code token_ids}), so that the answer looks as it would have without the router. A stream is filtered
 * event line by event line (a line is held only until its newline arrives); a JSON body is held whole when ids are
 * taken out of it (otherwise it passes through as it comes and a copy is read at the end). Lines without the fields
 * pass through byte for byte.
 */
final class TokenIdsFilter implements BodyInterceptor {

    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] MARK = "token_ids\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final boolean strip;
    private final boolean stream;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private int[] promptIds;
    private int[] outputIds = new int[0];
    private boolean broken;

    /**
     * @param strip  take the ids out of what the client gets
     * @param stream the answer is an SSE stream (else one JSON body)
     */
    TokenIdsFilter(boolean strip, boolean stream) {
        this.strip = strip;
        this.stream = stream;
    }

    /** Whether the client gets fewer bytes than the replica sent (its Content-Length cannot be passed on). */
    @Override
    public boolean changesLength() {
        return strip;
    }

    /** What to send the client for this chunk of the replica's answer (possibly nothing yet). */
    @Override
    public Buffer chunk(Buffer chunk) {
        byte[] bytes = chunk.getBytes();
        if (!stream) {
            pending.writeBytes(bytes);
            return strip ? Buffer.buffer() : chunk;
        }
        Buffer out = strip ? Buffer.buffer() : chunk;
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                pending.write(bytes, start, i - start);
                byte[] line = pending.toByteArray();
                pending.reset();
                byte[] kept = line(line);
                if (strip) {
                    out.appendBytes(kept).appendByte((byte) '\n');
                }
                start = i + 1;
            }
        }
        pending.write(bytes, start, bytes.length - start);
        return out;
    }

    /** The rest, once the replica's answer ended. */
    @Override
    public Buffer end() {
        byte[] rest = pending.toByteArray();
        pending.reset();
        byte[] kept = stream ? line(rest) : json(rest);
        return strip ? Buffer.buffer(kept) : Buffer.buffer();
    }

    /** The prompt's token ids, or null when the answer carried none (or they could not be read). */
    int[] promptTokenIds() {
        return broken ? null : promptIds;
    }

    /** The generated tokens' ids (empty when none came, or they could not be read). */
    int[] outputTokenIds() {
        return broken ? new int[0] : outputIds;
    }

    private byte[] line(byte[] line) {
        if (!contains(line, MARK)) {
            return line;
        }
        int at = 0;
        if (!startsWith(line, "data:")) {
            return line;
        }
        at = 5;
        if (at < line.length && line[at] == ' ') {
            at++;
        }
        byte[] json = json(Arrays.copyOfRange(line, at, line.length));
        byte[] out = new byte[at + json.length];
        System.arraycopy(line, 0, out, 0, at);
        System.arraycopy(json, 0, out, at, json.length);
        return out;
    }

    /** The JSON object with the ids read (and taken out when stripping); anything unreadable as it was. */
    private byte[] json(byte[] json) {
        if (!contains(json, MARK)) {
            return json;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(strip ? json.length : 0);
        try (JsonParser p = JSON.createParser(json);
             JsonGenerator g = strip ? JSON.createGenerator(out) : null) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.FIELD_NAME && (p.currentName().equals("prompt_token_ids") || p.currentName().equals("token_ids"))) {
                    boolean prompt = p.currentName().equals("prompt_token_ids");
                    p.nextToken();
                    if (p.currentToken() != JsonToken.START_ARRAY) {
                        p.skipChildren();
                    } else if (prompt && promptIds == null) {
                        promptIds = readInts(p);
                    } else if (!prompt) {
                        // A stream's deltas in order; a body's one list. (Agents ask for one choice.)
                        int[] more = readInts(p);
                        int at = outputIds.length;
                        outputIds = Arrays.copyOf(outputIds, at + more.length);
                        System.arraycopy(more, 0, outputIds, at, more.length);
                    } else {
                        p.skipChildren();
                    }
                    continue; // not copied: taken out when stripping, and without a generator otherwise
                }
                if (g != null) {
                    g.copyCurrentEvent(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            broken = true;
            return json;
        }
        return strip ? out.toByteArray() : json;
    }

    private static int[] readInts(JsonParser p) throws IOException {
        int[] ids = new int[1024];
        int n = 0;
        while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
            if (n == ids.length) {
                ids = Arrays.copyOf(ids, n * 2);
            }
            ids[n++] = p.getIntValue();
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
            throw new IOException("prompt_token_ids holds something other than integers");
        }
        return Arrays.copyOf(ids, n);
    }

    private static boolean startsWith(byte[] b, String prefix) {
        if (b.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (b[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean contains(byte[] b, byte[] mark) {
        outer:
        for (int i = 0; i <= b.length - mark.length; i++) {
            for (int j = 0; j < mark.length; j++) {
                if (b[i + j] != mark[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
