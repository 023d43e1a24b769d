package io.lmwarden.router.proxy;

import java.net.BindException;

/**
 * Tells the router's own connection troubles apart from a replica's: a full connection pool or a
 * process out of file descriptors or ephemeral ports says nothing about the replica's health.
 */
final class UpstreamErrors {

    private UpstreamErrors() {
    }

    /** The router ran out of sockets (EMFILE, ENFILE, EADDRNOTAVAIL): not the replica's fault. */
    static boolean outOfLocalSockets(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = String.valueOf(c.getMessage());
            if (c instanceof BindException || m.contains("Too many open files") || m.contains("Cannot assign requested address")
                    || m.contains("Too many open files in system")) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    /** Vert.x's pool refused or timed out the wait for one of the replica's capped connections. */
    static boolean poolBusy(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String name = c.getClass().getSimpleName();
            if (name.contains("TooBusy") || name.equals("TimeoutException") || name.contains("NoStackTraceTimeoutException")) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }
}
