package io.lmwarden.router.tenant;

import io.lmwarden.router.session.JsonSpans;
import io.vertx.core.buffer.Buffer;

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

    public static Buffer apply(byte[] body, JsonSpans cacheSalt, String salt) {
        byte[] value = ('"' + salt + '"').getBytes(StandardCharsets.UTF_8);
        Buffer out = Buffer.buffer(body.length + value.length + 16);
        if (cacheSalt.count() == 0) {
            int brace = cacheSalt.openBrace();
            out.appendBytes(body, 0, brace + 1);
            out.appendString("\"cache_salt\":").appendBytes(value);
            if (!cacheSalt.emptyObject()) {
                out.appendString(",");
            }
            out.appendBytes(body, brace + 1, body.length - brace - 1);
            return out;
        }
        int at = 0;
        for (int i = 0; i < cacheSalt.count(); i++) {
            out.appendBytes(body, at, cacheSalt.start(i) - at);
            out.appendBytes(value);
            at = cacheSalt.end(i);
        }
        out.appendBytes(body, at, body.length - at);
        return out;
    }
}
