package io.lmwarden.router.pool;

import io.netty.channel.ConnectTimeoutException;

import java.net.ConnectException;

/**
 * Whether a failed connection means nothing listens at the replica's address. A connect that timed out
 * is no such proof (Netty's {@code ConnectTimeoutException} is a {@code ConnectException} too): a replica
 * flooded with new connections, or a router starved of CPU, completes them late.
 */
public final class Refusals {

    private Refusals() {
    }

    public static boolean refused(Throwable err) {
        for (Throwable c = err; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ConnectException) {
                return !(c instanceof ConnectTimeoutException);
            }
        }
        return false;
    }
}
