package io.lmwarden.router.proxy;

import java.nio.charset.StandardCharsets;

/**
 * Asks the engine for the prompt's token ids (vLLM's {@code return_token_ids} on chat/completions and completions):
 * the router keys the engine's cache view with them. The field goes first into the body's top-level object, a byte
 * splice, without parsing the body again. A body that already names {@code return_token_ids} (the client asked, or
 * said no) is left as it is.
 */
final class TokenIdsRequest {

    private static final byte[] FIELD = "\"return_token_ids\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INSERT = "\"return_token_ids\":true".getBytes(StandardCharsets.US_ASCII);

    private TokenIdsRequest() {
    }

    /** Whether the body names the field anywhere outside a string (a JSON string cannot hold an unescaped quote). */
    static boolean mentioned(byte[] body) {
        outer:
        for (int i = 0; i <= body.length - FIELD.length; i++) {
            for (int j = 0; j < FIELD.length; j++) {
                if (body[i + j] != FIELD[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** The body asking for token ids, or null when it names the field already or is no JSON object. */
    static byte[] ask(byte[] body) {
        if (mentioned(body)) {
            return null;
        }
        int open = skipSpace(body, 0);
        if (open >= body.length || body[open] != '{') {
            return null;
        }
        int next = skipSpace(body, open + 1);
        boolean empty = next < body.length && body[next] == '}';
        byte[] out = new byte[body.length + INSERT.length + (empty ? 0 : 1)];
        System.arraycopy(body, 0, out, 0, open + 1);
        System.arraycopy(INSERT, 0, out, open + 1, INSERT.length);
        int at = open + 1 + INSERT.length;
        if (!empty) {
            out[at++] = ',';
        }
        System.arraycopy(body, open + 1, out, at, body.length - open - 1);
        return out;
    }

    private static int skipSpace(byte[] b, int i) {
        while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) {
            i++;
        }
        return i;
    }
}
