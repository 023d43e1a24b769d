package io.lmwarden.router.tenant;

import io.lmwarden.router.session.JsonSpans;

import java.nio.charset.StandardCharsets;

/**
 * Sets a tenant's {@code cache_salt} on a request body without re-serialising it: every top-level
 * {@code cache_salt} value the client sent is replaced in place (a JSON parser would take the last of
 * duplicate keys, so none may survive), or, when there is none, the field is inserted after the
 * opening brace.
 */
public final class CacheSaltWriter {

    private CacheSaltWriter() {
    }

    public static byte[] apply(byte[] body, JsonSpans cacheSalt, String salt) {
        byte[] value = ('"' + salt + '"').getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(body.length + value.length + 16);
        if (cacheSalt.count() == 0) {
            int brace = cacheSalt.openBrace();
            out.write(body, 0, brace + 1);
            out.writeBytes("\"cache_salt\":".getBytes(StandardCharsets.UTF_8));
            out.writeBytes(value);
            if (!cacheSalt.emptyObject()) {
                out.write(',');
            }
            out.write(body, brace + 1, body.length - brace - 1);
            return out.toByteArray();
        }
        int at = 0;
        for (int i = 0; i < cacheSalt.count(); i++) {
            out.write(body, at, cacheSalt.start(i) - at);
            out.writeBytes(value);
            at = cacheSalt.end(i);
        }
        out.write(body, at, body.length - at);
        return out.toByteArray();
    }
}
