package io.lmwarden.router.proxy;

import io.vertx.core.buffer.Buffer;

/**
 * One stage of a replica's answer on its way to the client, as vertx-http-proxy composes its interceptors: it sees each
 * chunk in order and passes on what the client should get of it (the chunk itself, less, or nothing yet), and once the
 * answer ended, whatever it still held back. The stages are a {@link BodyRelay}.
 */
interface BodyInterceptor {

    Buffer chunk(Buffer in);

    /** What it held back, once the replica's answer ended. */
    default Buffer end() {
        return Buffer.buffer();
    }

    /** Whether the client gets fewer bytes than the replica sent (the replica's Content-Length cannot be passed on). */
    default boolean changesLength() {
        return false;
    }
}
