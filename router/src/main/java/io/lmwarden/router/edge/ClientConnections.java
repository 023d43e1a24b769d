package io.lmwarden.router.edge;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Keeps client connections from holding the router's file descriptors forever: a keep-alive
 * connection with no request in progress is closed after the idle timeout, and at most {@code max}
 * are open. (A request head that does not arrive in time is {@link HeaderDeadline}'s business.) At the cap
 * the longest-idle connection is closed to make room (a flood of idle sockets cannot lock working
 * clients out); only when every connection is busy is the newcomer closed.
 */
public final class ClientConnections {

    private static final Logger LOG = Logger.getLogger(ClientConnections.class.getName());

    private final Vertx vertx;
    private final int max;
    private final long idleTimeoutMs;
    /** Idle connections first, oldest idle first: re-inserted whenever a connection becomes idle. */
    private final LinkedHashMap<HttpConnection, Conn> open = new LinkedHashMap<>();
    private long closedIdle;
    private long refused;

    private static final class Conn {
        int active;
        long timer = -1;
    }

    public ClientConnections(Vertx vertx, int max, Duration idleTimeout) {
        this.vertx = vertx;
        this.max = max;
        this.idleTimeoutMs = Math.max(1, idleTimeout.toMillis());
    }

    /** The server's connection handler; false when the connection was refused (and closed). */
    public boolean accepted(HttpConnection c) {
        HttpConnection evict = null;
        boolean refuse = false;
        synchronized (this) {
            if (open.size() >= max) {
                evict = oldestIdle();
                if (evict == null) {
                    refuse = true;
                    refused++;
                } else {
                    closedIdle++;
                    cancel(open.remove(evict));
                }
            }
            if (!refuse) {
                Conn state = new Conn();
                open.put(c, state);
                // With h2c off Vert.x hands a connection over as it is accepted: idle until its first request starts.
                state.timer = vertx.setTimer(idleTimeoutMs, id -> timedOut(c, "idle for " + idleTimeoutMs + " ms"));
            }
        }
        if (evict != null) {
            hardClose(evict);
        }
        if (refuse) {
            LOG.warning(() -> "client connection refused: all " + max + " connections busy (maxClientConnections)");
            hardClose(c);
            return false;
        }
        c.closeHandler(v -> closed(c));
        return true;
    }

    /** A request's headers arrived on the connection. */
    public synchronized void requestStarted(HttpConnection c) {
        Conn state = open.get(c);
        if (state != null) {
            state.active++;
            cancel(state);
        }
    }

    /** A request's response ended (or its connection closed). */
    public synchronized void requestEnded(HttpConnection c) {
        Conn state = open.get(c);
        if (state == null || --state.active > 0) {
            return;
        }
        state.active = 0;
        // Re-inserted at the end: the map is in order of becoming idle.
        open.remove(c);
        open.put(c, state);
        state.timer = vertx.setTimer(idleTimeoutMs, id -> timedOut(c, "idle for " + idleTimeoutMs + " ms"));
    }

    public synchronized int open() {
        return open.size();
    }

    /** Idle connections closed to make room, and new ones refused, since start. */
    public synchronized long[] shed() {
        return new long[] {closedIdle, refused};
    }

    private void timedOut(HttpConnection c, String why) {
        synchronized (this) {
            Conn state = open.get(c);
            if (state == null || state.active > 0) {
                return;
            }
            state.timer = -1;
        }
        LOG.fine(() -> "closing client connection " + c.remoteAddress() + ": " + why);
        hardClose(c);
    }

    /**
     * Closes the socket at once. {@code HttpConnection.close()} is a graceful shutdown that waits for the
     * request in progress, and a slow-header client's half-sent request counts as one, so it would stay.
     */
    private static void hardClose(HttpConnection c) {
        if (c instanceof ConnectionBase base) {
            base.channel().close();
        } else {
            c.close();
        }
    }

    private synchronized void closed(HttpConnection c) {
        cancel(open.remove(c));
    }

    private HttpConnection oldestIdle() {
        Iterator<Map.Entry<HttpConnection, Conn>> it = open.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<HttpConnection, Conn> e = it.next();
            if (e.getValue().active == 0) {
                return e.getKey();
            }
        }
        return null;
    }

    private void cancel(Conn state) {
        if (state != null && state.timer >= 0) {
            vertx.cancelTimer(state.timer);
            state.timer = -1;
        }
    }
}
