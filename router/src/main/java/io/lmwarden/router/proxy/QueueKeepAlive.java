package io.lmwarden.router.proxy;

import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/**
 * Keeps a queued streaming request's client alive: after each interval without admission it sends an
 * event the client's SSE reader ignores — Anthropic's own {@code event: ping}, an SSE comment line for
 * the OpenAI APIs — so that agents with read timeouts do not give up. The first one commits the
 * response head (200, {@code text/event-stream}); from then on errors can only be stream events.
 */
final class QueueKeepAlive {

    static final String ANTHROPIC_PING = "event: ping\ndata: {\"type\": \"ping\"}\n\n";
    static final String SSE_COMMENT = ": queued for admission, keep-alive\n\n";

    private final Vertx vertx;
    private final HttpServerResponse response;
    private final ApiDialect dialect;
    private long timer = -1;
    private boolean headWritten;

    QueueKeepAlive(Vertx vertx, HttpServerResponse response, ApiDialect dialect) {
        this.vertx = vertx;
        this.response = response;
        this.dialect = dialect;
    }

    /** Starts the keep-alives, unless they run already (a retry that waits again after a first wait). */
    void start(long intervalNanos) {
        if (timer >= 0) {
            return;
        }
        long ms = Math.max(1, intervalNanos / 1_000_000);
        timer = vertx.setPeriodic(ms, id -> ping());
    }

    private void ping() {
        if (response.ended() || response.closed()) {
            stop();
            return;
        }
        if (!headWritten) {
            headWritten = true;
            response.setStatusCode(200)
                    .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream")
                    .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
                    .putHeader("X-LMW-Queued", "true")
                    .setChunked(true);
        }
        response.write(dialect.anthropic() ? ANTHROPIC_PING : SSE_COMMENT);
    }

    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    /** Whether the response head went out with the first keep-alive. */
    boolean headWritten() {
        return headWritten;
    }
}
