package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.reservation.Reservation;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

import java.util.Set;

/**
 * The head of the client's answer, the first thing the relay writes: the replica's status and end-to-end headers, with
 * the router's own ({@code X-LMW-Replica}, {@code X-LMW-Decision}, {@code X-LMW-Queue-Wait-Ms}); or, when the queue's
 * keep-alives already sent a 200 head, the same facts as an SSE comment.
 */
final class ResponseHead {

    private static final Set<String> SET_HERE = HopByHopHeaders.names("x-lmw-replica", "x-lmw-decision");

    private ResponseHead() {
    }

    /** @param bodyChangesLength the client gets fewer bytes than the replica sent: its Content-Length is not passed on */
    static void write(HttpServerResponse response, HttpClientResponse up, Reservation r, long queuedNanos, boolean bodyChangesLength) {
        if (response.headWritten()) {
            response.write(": lmw replica=" + r.replicaId() + " decision=" + r.placement().decision().name()
                    + " queue-wait-ms=" + queuedNanos / 1_000_000 + "\n\n");
            return;
        }
        response.setStatusCode(up.statusCode());
        HopByHopHeaders.copy(up.headers(), response.headers(), SET_HERE);
        response.putHeader("X-LMW-Replica", DataParallelRank.answeredBy(r));
        response.putHeader("X-LMW-Decision", r.placement().decision().name());
        if (queuedNanos > 0) {
            response.putHeader("X-LMW-Queue-Wait-Ms", Long.toString(queuedNanos / 1_000_000));
        }
        if (bodyChangesLength) {
            response.headers().remove(HttpHeaders.CONTENT_LENGTH);
        }
        if (!response.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            response.setChunked(true);
        }
    }
}
