package io.lmwarden.router.proxy;

/** Keys of values stored on a routing context. */
public final class RouterTimestamps {

    /** System.nanoTime() when the request's head arrived, before its body was read. */
    public static final String RECEIVED_AT_NANOS = "lmw.receivedAtNanos";

    private RouterTimestamps() {
    }
}
