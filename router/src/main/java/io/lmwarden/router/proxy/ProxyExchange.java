package io.lmwarden.router.proxy;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.placement.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.Reservation;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.pool.Refusals;
import io.lmwarden.router.pool.ReplicaAddress;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;
import io.vertx.core.Context;
import io.vertx.core.Future;
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
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * One client request on its way through: reserve a replica, send the request upstream (connect,
 * send, status: one chain of futures, as vertx-http-proxy's {@code ReverseProxy} does), stream the
 * answer back with back-pressure, and close the reservation exactly once however it ends. A failure
 * before any byte of an answer reached the client (refused, 502/503/504, dropped, silent past the idle
 * timeout) is retried on another replica, never one that already failed it, within the {@link RetryBudget};
 * after the first byte the client's stream ends with an error in its own API's shape rather than a silent truncation.
 */
final class ProxyExchange {

    private static final Logger LOG = Logger.getLogger(ProxyExchange.class.getName());
    /** The router sets these itself on the upstream request. */
    private static final Set<String> REQUEST_HEADERS_SET_HERE = HopByHopHeaders.names("host", "content-length", "accept-encoding",
            DataParallelRank.HEADER);
    private static final Set<String> RESPONSE_HEADERS_SET_HERE = HopByHopHeaders.names("x-lmw-replica", "x-lmw-decision");

    /** Why an attempt produced no answer to relay. */
    private static final class UpstreamFailure extends RuntimeException {
        final String kind;
        final boolean connectFailure;

        UpstreamFailure(String kind, String detail, boolean connectFailure) {
            super(detail, null, false, false);
            this.kind = kind;
            this.connectFailure = connectFailure;
        }
    }

    private final ProxyContext ctx;
    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final RequestFacts facts;
    private final Buffer body;
    private final long receivedAtNanos;
    private final Set<String> tried = new LinkedHashSet<>();
    private final ResponseObserver observer;

    private Reservation reservation;
    private HttpClientRequest upstream;
    private long idleTimer = -1;
    /** The attempt the running idle timer watches, and when that attempt's replica last sent (or was sent) something. */
    private Reservation idleWatched;
    private long lastHeardNanos;
    /** When the first attempt started: the retry budget's time runs from here, not from the queue. */
    private long firstAttemptNanos;
    private boolean attempted;
    private boolean done;
    /** Where admission lets the first attempt go; null before admission and once used. */
    private Placement admitted;
    private long queuedNanos;
    private QueueKeepAlive keepAlive;
    /** The request's event loop: a queued request is admitted from another thread and comes back here. */
    private final Context context;
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
            } else if (!done && admitted == null && facts.stream()) {
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
            ctx.admission().release(facts, waiter);
            return;
        }
        queuedNanos = a.waitedNanos();
        admitted = a.placement();
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
        String kind = e.status() == 503 ? "no_replica" : "bad_pin";
        ctx.metrics().error(kind);
        failBeforeResponse(e.status(), e.getMessage(), kind);
    }

    private void attempt() {
        attempt(null, null);
    }

    /**
     * @param failed   the attempt this one retries, closed as retried only once the retry has a replica
     * @param noneLeft when no replica is left for the retry: the failed attempt's own ending is the request's last word
     */
    private void attempt(Consumer<Reservation> failed, Runnable noneLeft) {
        long now = System.nanoTime();
        if (!attempted) {
            attempted = true;
            firstAttemptNanos = now;
        }
        Reservation r;
        try {
            Placement at = admitted;
            admitted = null;
            r = at != null
                    ? ctx.reservations().openAt(facts, at, ctx.snapshot(), tried, now, receivedAtNanos)
                    : ctx.reservations().open(facts, ctx.snapshot().apply(now), tried, now, receivedAtNanos);
        } catch (NoReplicaAvailableException e) {
            if (noneLeft != null) {
                noneLeft.run();
            } else {
                noReplica(e);
            }
            return;
        }
        if (failed != null) {
            failed.accept(reservation);
        }
        reservation = r;
        upstream = null;
        armIdleTimer();
        Future<HttpClientResponse> sent;
        try {
            sent = forward(r);
        } catch (RuntimeException e) {
            // Whatever went wrong, the exchange must end and give its in-flight slot back.
            sent = Future.failedFuture(new UpstreamFailure("send", e.toString(), false));
        }
        sent.onComplete(ar -> {
            if (done || reservation != r) {
                // Over, or superseded by a retry: this attempt's answer goes nowhere.
                if (ar.succeeded()) {
                    ar.result().request().reset();
                }
                return;
            }
            if (ar.succeeded()) {
                relay(r, ar.result());
            } else if (ar.cause() instanceof UpstreamFailure f) {
                upstreamFailedBeforeResponse(r, f);
            } else {
                upstreamFailedBeforeResponse(r, new UpstreamFailure("send", ar.cause().toString(), false));
            }
        });
    }

    /** Connect, copy the headers, send the body, read the status: each step a future, each failure named. */
    private Future<HttpClientResponse> forward(Reservation r) {
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST)
                .setConnectTimeout(ctx.acquireTimeout().toMillis());
        ReplicaAddress to = r.replicaAddress();
        if (to == null) {
            opts.setAbsoluteURI(r.replicaUrl() + RequestTarget.originForm(request));
        } else {
            // What setAbsoluteURI would set, without parsing the replica's URL again for every request.
            opts.setHost(to.host()).setPort(to.port()).setSsl(to.ssl()).setURI(to.pathPrefix() + RequestTarget.originForm(request));
        }
        return ctx.client().request(opts)
                .recover(err -> Future.failedFuture(connectFailure(r, err)))
                .compose(req -> {
                    if (done || reservation != r) {
                        req.reset();
                        return Future.failedFuture(new UpstreamFailure("client_cancelled", "client left before the request was sent", false));
                    }
                    upstream = req;
                    MultiMap headers = req.headers();
                    HopByHopHeaders.copy(request.headers(), headers, REQUEST_HEADERS_SET_HERE);
                    headers.set("X-Forwarded-For", request.remoteAddress() == null ? "" : request.remoteAddress().hostAddress());
                    headers.set("X-Forwarded-Proto", request.scheme() == null ? "http" : request.scheme());
                    DataParallelRank.apply(r, headers);
                    r.sent(System.nanoTime());
                    return req.send(body).recover(err -> Future.failedFuture(new UpstreamFailure("send", err.toString(), false)));
                })
                .compose(up -> {
                    if (retryableStatus(up.statusCode()) && mayRetry()) {
                        // Overloaded, draining or a broken gateway: nothing reached the client yet, so try elsewhere.
                        up.body();
                        return Future.failedFuture(new UpstreamFailure("upstream_" + up.statusCode(),
                                "replica answered " + up.statusCode(), false));
                    }
                    return Future.succeededFuture(up);
                });
    }

    /**
     * A connection that could not be had: the replica's fault only when the router had sockets to spare
     * and the replica's pool was not at its cap.
     */
    private UpstreamFailure connectFailure(Reservation r, Throwable err) {
        if (UpstreamErrors.outOfLocalSockets(err)) {
            return new UpstreamFailure("router_sockets", "the router is out of sockets (" + err.getMessage() + ")", false);
        }
        int open = ctx.pool().get(r.replicaId()).map(s -> s.inFlight()).orElse(0);
        if (open > ctx.maxConnectionsPerReplica() || UpstreamErrors.poolBusy(err) && open >= ctx.maxConnectionsPerReplica()) {
            return new UpstreamFailure("connection_cap", "replica " + r.replicaId() + " has all its "
                    + ctx.maxConnectionsPerReplica() + " connections in use (maxConnectionsPerReplica) and none came free within "
                    + ctx.acquireTimeout().toMillis() + " ms", false);
        }
        return new UpstreamFailure("connect", err.toString(), Refusals.refused(err));
    }

    private void relay(Reservation r, HttpClientResponse up) {
        armIdleTimer();
        int status = up.statusCode();
        // Bytes from the replica prove it alive when its health check is starved by the same load.
        ReplicaState source = ctx.pool().get(r.replicaId()).orElse(null);
        if (source != null) {
            source.heardFrom(System.nanoTime());
        }
        if (response.headWritten()) {
            // The queue's keep-alives already sent a 200 head: what the headers would say goes in an SSE comment.
            if (status >= 400) {
                up.body().onComplete(b -> midStreamFailure("upstream_" + status, "replica " + r.replicaId() + " answered " + status
                        + " after the request left the router's queue: " + (b.succeeded() ? abbreviate(b.result().toString()) : "")));
                return;
            }
            response.write(": lmw replica=" + r.replicaId() + " decision=" + r.placement().decision().name()
                    + " queue-wait-ms=" + queuedNanos / 1_000_000 + "\n\n");
        } else {
            response.setStatusCode(status);
            HopByHopHeaders.copy(up.headers(), response.headers(), RESPONSE_HEADERS_SET_HERE);
            response.putHeader("X-LMW-Replica", DataParallelRank.answeredBy(r));
            response.putHeader("X-LMW-Decision", r.placement().decision().name());
            if (queuedNanos > 0) {
                response.putHeader("X-LMW-Queue-Wait-Ms", Long.toString(queuedNanos / 1_000_000));
            }
            if (!up.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
                response.setChunked(true);
            }
        }
        up.handler(chunk -> {
            if (done || reservation != r) {
                return;
            }
            long now = System.nanoTime();
            r.firstByte(now, status);
            if (source != null) {
                source.heardFrom(now);
            }
            armIdleTimer();
            observer.accept(chunk);
            response.write(chunk);
            if (response.writeQueueFull()) {
                up.pause();
                response.drainHandler(v -> up.resume());
            }
        });
        up.exceptionHandler(err -> {
            if (done || reservation != r) {
                return;
            }
            Runnable cut = () -> midStreamFailure("midstream_drop", "the replica " + r.replicaId()
                    + " dropped the response mid-stream (" + err.getMessage() + "); the output is incomplete, retry the request");
            if (!headCommitted() && mayRetry()) {
                // Dropped after its head but before any byte went on to the client: as good as not answered.
                retryBeforeAnyByte(r, 502, "drop_before_first_byte", "dropped before its first byte (" + err.getMessage() + ")", cut);
            } else {
                cut.run();
            }
        });
        up.endHandler(v -> {
            if (done || reservation != r) {
                return;
            }
            observer.end();
            r.firstByte(System.nanoTime(), status);
            response.end();
            boolean completed = facts.stream() ? observer.completed() : status < 400;
            end(res -> res.finish(status, completed, observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
        });
    }

    private void upstreamFailedBeforeResponse(Reservation r, UpstreamFailure f) {
        String failed = r.replicaId();
        if (f.connectFailure) {
            // Refused: nothing listens. A connect that timed out is left to the health checks: a replica flooded
            // with new connections (or a starved router) is slow, not gone, and taking it out would fail requests.
            ctx.pool().markUnhealthy(failed);
        }
        LogFields.warn(LOG, "upstream failure before response", "replica", failed, "kind", f.kind, "detail", f.getMessage());
        boolean ours = f.kind.equals("router_sockets");
        int status = f.kind.equals("upstream_503") || f.kind.equals("connection_cap") || ours ? 503
                : f.kind.equals("upstream_504") ? 504 : 502;
        if (ours) {
            // Another replica would not help: the router itself has no socket to give.
            ctx.metrics().error(f.kind);
            failBeforeResponse(status, f.getMessage() + "; retry the request later", f.kind);
            return;
        }
        Runnable giveUp = () -> {
            ctx.metrics().error(f.kind);
            failBeforeResponse(status, f.kind.equals("connection_cap") ? f.getMessage() + "; retry the request later"
                    : "replica " + failed + " failed before answering (" + f.kind + "); " + tried.size()
                            + " replica(s) tried, no other one left within retryAttempts/retryBudget; retry the request", f.kind);
        };
        if (mayRetry() && !headCommitted()) {
            attempt(previous -> {
                ctx.metrics().retry(failed);
                previous.fail(status, f.kind, true);
            }, giveUp);
            return;
        }
        giveUp.run();
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
            int sent = response.getStatusCode();
            end(r -> r.fail(sent, kind, observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
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
        end(r -> r.fail(status, kind, false));
    }

    private void clientGone() {
        if (done) {
            return;
        }
        end(r -> r.cancel(observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
        if (upstream != null) {
            // Cancels the engine's work: vLLM aborts a request whose connection closes.
            upstream.reset();
        }
    }

    /** The head went out, and not only with the queue's keep-alives (those still allow a retry). */
    private boolean headCommitted() {
        return response.headWritten() && !keptAliveOnly();
    }

    /** Only the queue's keep-alives reached the client: no byte of an engine's answer yet. */
    private boolean keptAliveOnly() {
        return keepAlive != null && keepAlive.headWritten() && (reservation == null || reservation.firstByteNanos() < 0);
    }

    private static String abbreviate(String s) {
        String one = s.replace('\n', ' ').trim();
        return one.length() > 300 ? one.substring(0, 300) + "…" : one;
    }

    /**
     * The replica was just heard from (or the attempt just started): the stream idle timeout counts from now. One
     * timer per attempt, not one per chunk: when it fires early (the replica spoke since) it waits out the rest.
     */
    private void armIdleTimer() {
        lastHeardNanos = System.nanoTime();
        if (idleTimer >= 0 && idleWatched == reservation) {
            return;
        }
        if (idleTimer >= 0) {
            ctx.vertx().cancelTimer(idleTimer);
        }
        idleWatched = reservation;
        scheduleIdleCheck(ctx.streamIdleTimeout().toMillis());
    }

    private void scheduleIdleCheck(long delayMs) {
        long ms = ctx.streamIdleTimeout().toMillis();
        Reservation current = reservation;
        String replica = current.replicaId();
        idleTimer = ctx.vertx().setTimer(Math.max(1, delayMs), id -> {
            idleTimer = -1;
            if (done || reservation != current) {
                return;
            }
            long silentMs = (System.nanoTime() - lastHeardNanos) / 1_000_000;
            if (silentMs < ms) {
                scheduleIdleCheck(ms - silentMs);
                return;
            }
            Runnable cut = () -> midStreamFailure("idle_timeout", "replica " + replica + " sent nothing for " + ms
                    + " ms (stream idle timeout); the request was cancelled");
            if (!headCommitted() && mayRetry()) {
                // Nothing reached the client yet, so a replica that stalls past the idle timeout is left for another.
                retryBeforeAnyByte(current, 504, "idle_timeout", "silent for " + ms + " ms before answering", cut);
                return;
            }
            cut.run();
        });
    }

    /** The attempt on {@code r} failed while nothing of its answer had reached the client: another replica gets the request. */
    private void retryBeforeAnyByte(Reservation r, int status, String kind, String why, Runnable noneLeft) {
        HttpClientRequest toCancel = upstream;
        LogFields.warn(LOG, "retrying elsewhere", "replica", r.replicaId(), "kind", kind, "detail", why, "attempt", tried.size());
        if (!response.headWritten()) {
            // Headers a failed relay already copied must not leak into the retry's answer.
            response.headers().clear();
            response.setChunked(false);
        }
        attempt(previous -> {
            ctx.metrics().retry(r.replicaId());
            previous.fail(status, kind, true);
        }, noneLeft);
        if (toCancel != null) {
            toCancel.reset();
        }
    }

    /** Whether the retry budget allows one more attempt (the replicas tried so far are never tried again). */
    private boolean mayRetry() {
        return ctx.retries().allowsAnother(tried.size(), firstAttemptNanos, System.nanoTime());
    }

    /** Answers another replica may not give: overloaded or draining (503) and a gateway's failures (502, 504). */
    private static boolean retryableStatus(int status) {
        return status == 502 || status == 503 || status == 504;
    }

    /** The exchange is over: the open reservation, if any, is closed the given way. */
    private void end(Consumer<Reservation> close) {
        if (done) {
            return;
        }
        done = true;
        if (idleTimer >= 0) {
            ctx.vertx().cancelTimer(idleTimer);
        }
        if (keepAlive != null) {
            keepAlive.stop();
        }
        if (reservation != null && !reservation.closed()) {
            close.accept(reservation);
        }
        // Admission hears the end through the reservation; this covers a request that never got one (queued, rejected).
        ctx.admission().release(facts, waiter);
        ctx.inFlight().end();
    }
}
