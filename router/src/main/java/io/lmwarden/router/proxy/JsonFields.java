package io.lmwarden.router.proxy;

import java.nio.charset.StandardCharsets;

/**
 * Fields the router adds to a request body's top-level JSON object, spliced in first as bytes, without parsing the
 * body again. A body that names the field anywhere already (the client set it, or said no) is left as it is.
 */
final class JsonFields {

    private JsonFields() {
    }

    /** Whether the body names {@code name} anywhere outside a string (a JSON string cannot hold an unescaped quote). */
    static boolean mentioned(byte[] body, String name) {
        byte[] field = ('"' + name + '"').getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i <= body.length - field.length; i++) {
            for (int j = 0; j < field.length; j++) {
                if (body[i + j] != field[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * The body with {@code "name":jsonValue} first in its top-level object, or null when it names the field already or
     * is no JSON object.
     */
    static byte[] prepend(byte[] body, String name, String jsonValue) {
        if (mentioned(body, name)) {
            return null;
        }
        int open = skipSpace(body, 0);
        if (open >= body.length || body[open] != '{') {
            return null;
        }
        byte[] insert = ('"' + name + "\":" + jsonValue).getBytes(StandardCharsets.UTF_8);
        int next = skipSpace(body, open + 1);
        boolean empty = next < body.length && body[next] == '}';
        byte[] out = new byte[body.length + insert.length + (empty ? 0 : 1)];
        System.arraycopy(body, 0, out, 0, open + 1);
        System.arraycopy(insert, 0, out, open + 1, insert.length);
        int at = open + 1 + insert.length;
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
