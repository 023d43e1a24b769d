package io.lmwarden.router.proxy;

import io.lmwarden.sim.logging.LogFields;
import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.stats.ExchangeOutcome;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.logging.Logger;

/**
 * One client request on its way through: place it, send it upstream, stream the answer back with
 * back-pressure, and account for it exactly once however it ends. A failure before any byte reached
 * the client is retried once elsewhere; after that the client's stream ends with an error in its
 * own API's shape rather than a silent truncation.
 */
final class ProxyExchange {

    private static final Logger LOG = Logger.getLogger(ProxyExchange.class.getName());
    private static final int MAX_ATTEMPTS = 2;
    /** The router sets these itself on the upstream request. */
    private static final Set<String> REQUEST_HEADERS_SET_HERE = Set.of("host", "content-length", "accept-encoding");
    private static final Set<String> RESPONSE_HEADERS_SET_HERE = Set.of("x-lmw-replica", "x-lmw-decision");

    private final ProxyContext ctx;
    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final RequestFacts facts;
    private final Buffer body;
    private final long receivedAtNanos;
    private final Set<String> tried = new LinkedHashSet<>();
    private final ResponseObserver observer;

    private Placement placement;
    private ReplicaState replica;
    private HttpClientRequest upstream;
    private long sentAtNanos = -1;
    private long firstByteNanos = -1;
    private long idleTimer = -1;
    private boolean attemptOpen;
    private long pendingPrefill = -1;
    private boolean done;

    ProxyExchange(ProxyContext ctx, HttpServerRequest request, RequestFacts facts, Buffer body, long receivedAtNanos) {
        this.ctx = ctx;
        this.request = request;
        this.response = request.response();
        this.facts = facts;
        this.body = body;
        this.receivedAtNanos = receivedAtNanos;
        this.observer = new ResponseObserver(facts.flavor());
    }

    void start() {
        ctx.inFlight().begin();
        response.closeHandler(v -> clientGone());
        attempt();
    }

    private void attempt() {
        long now = System.nanoTime();
        try {
            placement = ctx.placer().place(facts, ctx.snapshot().apply(now), tried, now);
        } catch (NoReplicaAvailableException e) {
            ctx.metrics().error(e.status() == 503 ? "no_replica" : "bad_pin");
            failBeforeResponse(e.status(), e.getMessage(), e.status() == 503 ? "no_replica" : "bad_pin");
            return;
        }
        replica = ctx.pool().get(placement.replica().id()).orElse(null);
        if (replica == null) {
            tried.add(placement.replica().id());
            attempt();
            return;
        }
        if (!placement.replica().metricsFresh()) {
            ctx.metrics().staleMetricsFallback(replica.id());
        }
        if (placement.decision() == Decision.SPILL) {
            replica.countSpillIn();
        } else if (placement.decision() == Decision.CLIENT_PINNED) {
            replica.countClientPinned();
        }
        tried.add(replica.id());
        replica.dispatched();
        pendingPrefill = Math.max(0, facts.shape().estimatedTokens() - placement.expectedCachedTokens());
        replica.prefillStarted(pendingPrefill);
        attemptOpen = true;
        ctx.listener().placed(facts, placement);
        armIdleTimer();

        RequestOptions opts = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setAbsoluteURI(replica.url() + request.uri());
        ctx.client().request(opts).onComplete(ar -> {
            if (done) {
                if (ar.succeeded()) {
                    ar.result().reset();
                }
                return;
            }
            if (ar.failed()) {
                upstreamFailedBeforeResponse("connect", ar.cause().toString(), true);
                return;
            }
            upstream = ar.result();
            MultiMap headers = upstream.headers();
            HopByHopHeaders.copy(request.headers(), headers, REQUEST_HEADERS_SET_HERE);
            headers.set("X-Forwarded-For", request.remoteAddress() == null ? "" : request.remoteAddress().hostAddress());
            headers.set("X-Forwarded-Proto", request.scheme() == null ? "http" : request.scheme());
            sentAtNanos = System.nanoTime();
            upstream.send(body).onComplete(rr -> {
                if (done) {
                    return;
                }
                if (rr.failed()) {
                    upstreamFailedBeforeResponse("send", rr.cause().toString(), false);
                } else {
                    onUpstreamResponse(rr.result());
                }
            });
        });
    }

    private void onUpstreamResponse(HttpClientResponse up) {
        if (up.statusCode() == 503 && tried.size() < MAX_ATTEMPTS) {
            // Overloaded or draining: nothing reached the client yet, so try once elsewhere.
            up.body();
            upstreamFailedBeforeResponse("upstream_503", "replica answered 503", false);
            return;
        }
        armIdleTimer();
        response.setStatusCode(up.statusCode());
        HopByHopHeaders.copy(up.headers(), response.headers(), RESPONSE_HEADERS_SET_HERE);
        response.putHeader("X-LMW-Replica", replica.id());
        response.putHeader("X-LMW-Decision", placement.decision().name());
        if (!up.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            response.setChunked(true);
        }
        up.handler(chunk -> {
            if (done) {
                return;
            }
            if (firstByteNanos < 0) {
                firstByteNanos = System.nanoTime();
                endPendingPrefill();
            }
            armIdleTimer();
            observer.accept(chunk);
            response.write(chunk);
            if (response.writeQueueFull()) {
                up.pause();
                response.drainHandler(v -> up.resume());
            }
        });
        up.exceptionHandler(err -> midStreamFailure("midstream_drop", "the replica " + replica.id()
                + " dropped the response mid-stream (" + err.getMessage() + "); the output is incomplete, retry the request"));
        up.endHandler(v -> {
            if (done) {
                return;
            }
            observer.end();
            if (firstByteNanos < 0) {
                firstByteNanos = System.nanoTime();
            }
            response.end();
            boolean completed = facts.stream() ? observer.completed() : up.statusCode() < 400;
            finish(up.statusCode(), completed, up.statusCode() < 400 ? "ok" : "upstream_" + up.statusCode());
        });
    }

    private void upstreamFailedBeforeResponse(String kind, String detail, boolean connectFailure) {
        String failed = replica.id();
        closeAttempt();
        if (connectFailure) {
            ctx.pool().markUnhealthy(failed);
        }
        replica.countFailure();
        LogFields.warn(LOG, "upstream failure before response", "replica", failed, "kind", kind, "detail", detail);
        if (tried.size() < MAX_ATTEMPTS && !response.headWritten()) {
            ctx.metrics().retry(failed);
            attempt();
            return;
        }
        ctx.metrics().error(kind);
        failBeforeResponse(kind.equals("upstream_503") ? 503 : 502,
                "replica " + failed + " failed before answering (" + kind + "), and no retry was possible; retry the request",
                kind);
    }

    private void midStreamFailure(String kind, String message) {
        if (done) {
            return;
        }
        ctx.metrics().error(kind);
        HttpClientRequest toCancel = upstream;
        int status = kind.equals("idle_timeout") ? 504 : 502;
        if (!response.headWritten()) {
            failBeforeResponse(status, message, kind);
        } else {
            if (facts.stream()) {
                response.end(ApiErrors.streamEvent(facts.flavor(), status, message));
            } else {
                // A JSON body cut short must not look whole: break the connection so the client sees an error.
                response.reset();
            }
            finish(response.getStatusCode(), false, kind);
        }
        // Only now: resetting calls the upstream's handlers at once, and they must find the exchange done.
        if (toCancel != null) {
            toCancel.reset();
        }
    }

    private void failBeforeResponse(int status, String message, String kind) {
        if (!response.headWritten() && !response.ended() && !response.closed()) {
            response.setStatusCode(status)
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(facts.flavor(), status, message));
        }
        finish(status, false, kind);
    }

    private void clientGone() {
        if (done) {
            return;
        }
        finish(499, false, "client_cancelled");
        if (upstream != null) {
            // Cancels the engine's work: vLLM aborts a request whose connection closes.
            upstream.reset();
        }
    }

    private void armIdleTimer() {
        if (idleTimer >= 0) {
            ctx.vertx().cancelTimer(idleTimer);
        }
        long ms = ctx.streamIdleTimeout().toMillis();
        idleTimer = ctx.vertx().setTimer(ms, id -> {
            idleTimer = -1;
            midStreamFailure("idle_timeout", "replica " + replica.id() + " sent nothing for " + ms
                    + " ms (stream idle timeout); the request was cancelled");
        });
    }

    private void closeAttempt() {
        if (attemptOpen) {
            attemptOpen = false;
            endPendingPrefill();
            replica.finished();
        }
    }

    private void endPendingPrefill() {
        if (pendingPrefill >= 0) {
            replica.prefillDone(pendingPrefill);
            pendingPrefill = -1;
        }
    }

    private void finish(int status, boolean completed, String outcome) {
        if (done) {
            return;
        }
        done = true;
        if (idleTimer >= 0) {
            ctx.vertx().cancelTimer(idleTimer);
        }
        closeAttempt();
        ctx.inFlight().end();
        if (placement != null && replica != null) {
            long ttfb = firstByteNanos < 0 ? -1 : firstByteNanos - receivedAtNanos;
            ctx.listener().ended(facts, placement, new ExchangeOutcome(receivedAtNanos, sentAtNanos, ttfb, status, completed,
                    observer.cachedTokens(), observer.promptTokens(), observer.outputTokens(), outcome));
        }
    }
}
