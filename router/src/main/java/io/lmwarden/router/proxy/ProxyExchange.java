package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.stats.ExchangeOutcome;
import io.vertx.core.Context;
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
    /** The request's event loop: a queued request is admitted from another thread and comes back here. */
    private final Context context;

    private Placement placement;
    private ReplicaState replica;
    private HttpClientRequest upstream;
    private long sentAtNanos = -1;
    private long firstByteNanos = -1;
    private long idleTimer = -1;
    private boolean attemptOpen;
    private long pendingPrefill = -1;
    private boolean done;
    /** Set once admitted; closed exactly once in {@link #finish}. */
    private AdmissionController.Ticket ticket;
    private long queuedNanos;
    private QueueKeepAlive keepAlive;
    private final AdmissionController.Waiter waiter = new AdmissionController.Waiter() {
        @Override
        public void admitted(AdmissionController.Admission a) {
            context.runOnContext(v -> onAdmitted(a));
        }

        @Override
        public void rejected(AdmissionController.Rejection r) {
            context.runOnContext(v -> onRejected(r));
        }
    };

    ProxyExchange(ProxyContext ctx, HttpServerRequest request, RequestFacts facts, Buffer body, long receivedAtNanos) {
        this.ctx = ctx;
        this.request = request;
        this.response = request.response();
        this.facts = facts;
        this.body = body;
        this.receivedAtNanos = receivedAtNanos;
        this.observer = new ResponseObserver(facts.flavor());
        this.context = ctx.vertx().getOrCreateContext();
    }

    void start() {
        ctx.inFlight().begin();
        response.closeHandler(v -> clientGone());
        try {
            var now = ctx.admission().submit(facts, tried, waiter);
            if (now.isPresent()) {
                onAdmitted(now.get());
            } else if (!done && ticket == null && facts.stream()) {
                keepAlive = new QueueKeepAlive(ctx.vertx(), response, facts.flavor());
                keepAlive.start(ctx.admission().settings().keepAliveNanos());
            }
        } catch (NoReplicaAvailableException e) {
            noReplica(e);
        }
    }

    /** Admitted, at once or after waiting in the queue (then on this exchange's context). */
    private void onAdmitted(AdmissionController.Admission a) {
        if (keepAlive != null) {
            keepAlive.stop();
        }
        if (done) {
            // The client left while the admission was on its way here.
            a.ticket().close();
            return;
        }
        ticket = a.ticket();
        queuedNanos = a.waitedNanos();
        placement = a.placement();
        attempt();
    }

    private void onRejected(AdmissionController.Rejection r) {
        if (keepAlive != null) {
            keepAlive.stop();
        }
        if (done) {
            return;
        }
        ctx.metrics().error(r.reason());
        if (r.status() != 0) {
            failBeforeResponse(r.status(), r.message(), r.reason());
            return;
        }
        // Saturated, not broken: OpenAI's rate-limit status; Anthropic's "overloaded".
        int status = facts.flavor().anthropic() ? 529 : 429;
        if (!response.headWritten()) {
            response.putHeader("Retry-After", Long.toString(r.retryAfterSeconds()));
        }
        failBeforeResponse(status, r.message(), r.reason());
    }

    private void noReplica(NoReplicaAvailableException e) {
        ctx.metrics().error(e.status() == 503 ? "no_replica" : "bad_pin");
        failBeforeResponse(e.status(), e.getMessage(), e.status() == 503 ? "no_replica" : "bad_pin");
    }

    /** Sends the request to {@code placement}'s replica; a retry (placement null) places it again. */
    private void attempt() {
        long now = System.nanoTime();
        if (placement == null) {
            try {
                placement = ctx.placer().place(facts, ctx.snapshot().apply(now), tried, now);
            } catch (NoReplicaAvailableException e) {
                noReplica(e);
                return;
            }
            ticket.moved(placement.replica().id());
        }
        replica = ctx.pool().get(placement.replica().id()).orElse(null);
        if (replica == null) {
            tried.add(placement.replica().id());
            placement = null;
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
        if (response.headWritten()) {
            // The queue's keep-alive already sent a 200 head: what the headers would say goes in an SSE comment.
            if (up.statusCode() >= 400) {
                up.body().onComplete(b -> midStreamFailure("upstream_" + up.statusCode(), "replica " + replica.id() + " answered "
                        + up.statusCode() + " after the request left the queue: " + (b.succeeded() ? abbreviate(b.result().toString()) : "")));
                return;
            }
            response.write(": lmw replica=" + replica.id() + " decision=" + placement.decision().name()
                    + " queue-wait-ms=" + queuedNanos / 1_000_000 + "\n\n");
        } else {
            response.setStatusCode(up.statusCode());
            HopByHopHeaders.copy(up.headers(), response.headers(), RESPONSE_HEADERS_SET_HERE);
            response.putHeader("X-LMW-Replica", replica.id());
            response.putHeader("X-LMW-Decision", placement.decision().name());
            if (queuedNanos > 0) {
                response.putHeader("X-LMW-Queue-Wait-Ms", Long.toString(queuedNanos / 1_000_000));
            }
            if (!up.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
                response.setChunked(true);
            }
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
        LOG.warning(() -> "upstream failure before response replica=" + failed + " kind=" + kind + " detail=" + detail);
        if (tried.size() < MAX_ATTEMPTS && !headCommitted()) {
            ctx.metrics().retry(failed);
            placement = null;
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
        if (!response.headWritten() || keptAliveOnly()) {
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
        } else if (keptAliveOnly() && !response.ended() && !response.closed()) {
            // Only keep-alives went out: the error is the stream's first and last event.
            response.end(ApiErrors.streamEvent(facts.flavor(), status, message));
        }
        finish(status, false, kind);
    }

    private void clientGone() {
        if (done) {
            return;
        }
        if (keepAlive != null) {
            keepAlive.stop();
        }
        finish(499, false, "client_cancelled");
        if (upstream != null) {
            // Cancels the engine's work: vLLM aborts a request whose connection closes.
            upstream.reset();
        }
    }

    /** The head went out, and not only with the queue's keep-alives (those still allow a retry). */
    private boolean headCommitted() {
        return response.headWritten() && !keptAliveOnly();
    }

    private boolean keptAliveOnly() {
        return keepAlive != null && keepAlive.headWritten() && firstByteNanos < 0;
    }

    private static String abbreviate(String s) {
        String one = s.replace('\n', ' ').trim();
        return one.length() > 300 ? one.substring(0, 300) + "…" : one;
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
        if (keepAlive != null) {
            keepAlive.stop();
        }
        if (ticket != null) {
            ticket.close();
        } else {
            ctx.admission().cancel(waiter);
        }
        ctx.inFlight().end();
        if (placement != null && replica != null) {
            long ttfb = firstByteNanos < 0 ? -1 : firstByteNanos - receivedAtNanos;
            ctx.listener().ended(facts, placement, new ExchangeOutcome(receivedAtNanos, sentAtNanos, ttfb, status, completed,
                    observer.cachedTokens(), observer.promptTokens(), observer.outputTokens(), outcome));
        }
    }
}
