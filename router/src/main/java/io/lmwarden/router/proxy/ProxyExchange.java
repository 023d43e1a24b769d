package io.lmwarden.router.proxy;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * One client request on its way through, in {@link Phase phases}: admission (at once or after the queue), then an attempt
 * on a reserved replica ({@link UpstreamCall}), its answer relayed — the head ({@link ResponseHead}), then the body
 * through its stages ({@link BodyRelay}) with back-pressure —, and the reservation closed exactly once however it ends. A failure
 * before any byte of an answer reached the client (a {@link FailureKind} that may go elsewhere) is retried on
 * another replica, never one that already failed it, within the {@link RetryBudget}; after the first byte the
 * client's stream ends with an error in its own API's shape rather than a silent truncation. The replica's silence
 * is watched by {@link IdleWatch}; a queued stream is kept alive by {@link QueueKeepAlive}.
 */
final class ProxyExchange {

    private static final Logger LOG = Logger.getLogger(ProxyExchange.class.getName());
    /**
     * Where the exchange is. Its transitions: ADMITTING → (QUEUED →) ATTEMPTING → RELAYING → DONE, a retry going back
     * from ATTEMPTING or RELAYING (before any byte reached the client) to ATTEMPTING, or to QUEUED when it waits for room.
     */
    enum Phase {
        /** Asked admission; no answer yet. */
        ADMITTING,
        /** Waits in admission's queue (a stream is kept alive meanwhile). */
        QUEUED,
        /** An attempt is sent to a replica; no answer head yet. */
        ATTEMPTING,
        /** The replica answered; its answer goes to the client. */
        RELAYING,
        /** Over: the client has its answer or its error, or left; the reservation is closed. */
        DONE
    }

    private static final long NOT_YET = Long.MIN_VALUE;

    private final ProxyContext ctx;
    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final RequestFacts facts;
    /** What is sent upstream: the client's body as the router rewrote it, with the engine priority once admitted. */
    private Buffer body;
    private final long receivedAtNanos;
    private final Set<String> tried = new LinkedHashSet<>();
    private final ResponseObserver observer;
    private final UpstreamCall call;
    private final IdleWatch idle;
    private final QueueKeepAlive keepAlive;
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

    private Reservation reservation;
    private final ProxyHandler.TokenIds tokenIds;
    private HttpClientRequest upstream;
    /** When the first attempt started: the retry budget's time runs from here, not from the queue. */
    private long firstAttemptNanos = NOT_YET;
    private Phase phase = Phase.ADMITTING;
    /** Where admission lets the first attempt go; null before admission and once used. */
    private Placement admitted;
    private long queuedNanos;

    ProxyExchange(ProxyContext ctx, HttpServerRequest request, RequestFacts facts, Buffer body, long receivedAtNanos,
                  ProxyHandler.TokenIds tokenIds) {
        this.tokenIds = tokenIds;
        this.ctx = ctx;
        this.request = request;
        this.response = request.response();
        this.facts = facts;
        this.body = body;
        this.receivedAtNanos = receivedAtNanos;
        this.observer = new ResponseObserver(facts.dialect());
        this.call = new UpstreamCall(ctx);
        this.idle = new IdleWatch(ctx.vertx(), ctx.upstream().streamIdleTimeout().toMillis(), this::silent);
        this.keepAlive = new QueueKeepAlive(ctx.vertx(), response, facts.dialect());
        this.context = ctx.vertx().getOrCreateContext();
    }

    void start() {
        ctx.inFlight().begin();
        response.closeHandler(v -> clientGone());
        try {
            var now = ctx.admission().submit(facts, tried, waiter);
            if (now.isPresent()) {
                onAdmitted(now.get());
            } else if (phase == Phase.ADMITTING) {
                // Queued (not rejected, not admitted meanwhile from another thread's pump: that comes back via this context).
                phase = Phase.QUEUED;
                if (facts.stream()) {
                    keepAlive.start(ctx.admission().rules().keepAliveNanos());
                }
            }
        } catch (NoReplicaAvailableException e) {
            noReplica(e);
        }
    }

    /** Admitted, at once or after waiting in the queue (then on this exchange's context). */
    private void onAdmitted(AdmissionController.Admission a) {
        keepAlive.stop();
        if (phase == Phase.DONE) {
            // The client left while the admission was on its way here.
            ctx.admission().release(facts, waiter);
            return;
        }
        queuedNanos = a.waitedNanos();
        admitted = a.placement();
        if (ctx.upstream().enginePriority()) {
            body = PriorityRequest.apply(body, facts.dialect(), ctx.admission().enginePriority(facts, queuedNanos));
        }
        attempt(null, null);
    }

    private void onRejected(AdmissionController.Rejection r) {
        keepAlive.stop();
        if (phase == Phase.DONE) {
            return;
        }
        FailureKind kind = FailureKind.of(r);
        ctx.metrics().error(kind.label());
        if (r.reason() != AdmissionController.Rejection.Reason.NO_REPLICA && !response.headWritten()) {
            response.putHeader("Retry-After", Long.toString(r.retryAfterSeconds()));
        }
        failBeforeResponse(kind.status(facts.dialect()), r.message(), kind.label());
    }

    private void noReplica(NoReplicaAvailableException e) {
        FailureKind kind = FailureKind.of(e);
        ctx.metrics().error(kind.label());
        failBeforeResponse(kind.status(facts.dialect()), e.getMessage(), kind.label());
    }

    /**
     * An attempt where admission placed the request ({@link #admitted}), or, for a retry, where admission places it
     * now among the replicas not tried yet; a retry that finds no room within the KV budget waits in the queue.
     *
     * @param failed   the attempt this one retries, closed as retried once the retry has a replica or waits for one
     * @param noneLeft when no replica is left for the retry: the failed attempt's own ending is the request's last word
     */
    private void attempt(Consumer<Reservation> failed, Runnable noneLeft) {
        long now = System.nanoTime();
        if (firstAttemptNanos == NOT_YET) {
            firstAttemptNanos = now;
        }
        phase = Phase.ATTEMPTING;
        Optional<Reservation> opened = Optional.empty();
        try {
            // A replica that left the pool since admission chose it is placed around, among the others; each leaving
            // takes a replica out of the pool, so this ends: at most once per replica, then placement has none left.
            for (int placements = 0; opened.isEmpty(); placements++) {
                Placement at = admitted;
                admitted = null;
                if (at == null) {
                    Optional<AdmissionController.Admission> a = ctx.admission().submit(facts, tried, waiter);
                    if (a.isEmpty()) {
                        waitForRoom(failed);
                        return;
                    }
                    at = a.get().placement();
                }
                if (placements > ctx.pool().all().size()) {
                    throw new NoReplicaAvailableException(503, "every replica placement chose left the pool before the request reached it");
                }
                if (at.pendingClaim() != null) {
                    awaitClaim(at, failed);
                    return;
                }
                opened = ctx.reservations().openAt(facts, at, tried, receivedAtNanos);
            }
        } catch (NoReplicaAvailableException e) {
            if (noneLeft != null) {
                noneLeft.run();
            } else {
                noReplica(e);
            }
            return;
        }
        Reservation r = opened.get();
        if (failed != null) {
            failed.accept(reservation);
        }
        reservation = r;
        upstream = null;
        idle.heard(r);
        Future<HttpClientResponse> sent;
        try {
            sent = call.send(r, request, body, () -> current(r), req -> upstream = req, this::mayRetry);
        } catch (RuntimeException e) {
            // Whatever went wrong, the exchange must end and give its in-flight slot back.
            sent = Future.failedFuture(new UpstreamCall.Failed(FailureKind.SEND, e.toString(), false));
        }
        sent.onComplete(ar -> {
            if (!current(r)) {
                // Over, or superseded by a retry: this attempt's answer goes nowhere.
                if (ar.succeeded()) {
                    ar.result().request().reset();
                }
                return;
            }
            if (ar.succeeded()) {
                relay(r, ar.result());
            } else if (ar.cause() instanceof UpstreamCall.Failed f) {
                upstreamFailedBeforeResponse(r, f);
            } else {
                upstreamFailedBeforeResponse(r, new UpstreamCall.Failed(FailureKind.SEND, ar.cause().toString(), false));
            }
        });
    }

    /** Whether {@code r} is the attempt that speaks for the exchange: not over, not superseded by a retry. */
    private boolean current(Reservation r) {
        return phase != Phase.DONE && reservation == r;
    }

    /**
     * A new session's pin is still being settled by the router cluster: the attempt goes on, back on this exchange's
     * context, once it is, with no thread held meanwhile. Where this placement's pin won, there; where another
     * router's won, placed again (placement now finds that pin). A retry's failed attempt is closed as retried at once,
     * as when it waits for room.
     */
    private void awaitClaim(Placement at, Consumer<Reservation> failed) {
        if (failed != null) {
            idle.stop();
            if (reservation != null && !reservation.closed()) {
                failed.accept(reservation);
            }
        }
        // Until it is sent (or placed again), the request counts on its replica as if it were: the next new session
        // placed meanwhile sees it, as it did when the claim settled on the spot.
        Optional<ReplicaState> headed = ctx.pool().get(at.replica().id());
        headed.ifPresent(ReplicaState::awaitingPin);
        Future.fromCompletionStage(at.pendingClaim(), context).onComplete(claim -> {
            headed.ifPresent(ReplicaState::pinSettled);
            if (phase == Phase.DONE) {
                // The client left meanwhile: end() released the admission already.
                return;
            }
            if (claim.failed()) {
                noReplica(new NoReplicaAvailableException(503, "the router cluster could not settle this session's home: "
                        + claim.cause()));
                return;
            }
            admitted = claim.result().equals(at.replica().id()) ? at.claimSettled() : null;
            attempt(null, null);
        });
    }

    /** A retry waits for room within the KV budget: the failed attempt is over, and a stream is kept alive meanwhile. */
    private void waitForRoom(Consumer<Reservation> failed) {
        // The failed attempt's replica is no longer watched: nothing more is expected of it.
        idle.stop();
        if (failed != null && reservation != null && !reservation.closed()) {
            failed.accept(reservation);
        }
        phase = Phase.QUEUED;
        if (facts.stream()) {
            keepAlive.start(ctx.admission().rules().keepAliveNanos());
        }
    }

    private void relay(Reservation r, HttpClientResponse up) {
        phase = Phase.RELAYING;
        idle.heard(r);
        int status = up.statusCode();
        // Bytes from the replica prove it alive when its health check is starved by the same load.
        ReplicaState source = ctx.pool().get(r.replicaId()).orElse(null);
        if (source != null) {
            source.heardFrom(System.nanoTime());
        }
        if (response.headWritten() && status >= 400) {
            // The queue's keep-alives already sent a 200 head: the replica's error can only be the stream's last event.
            up.body().onComplete(b -> midStreamFailure(FailureKind.UPSTREAM_ERROR_IN_STREAM, status, "replica " + r.replicaId()
                    + " answered " + status + " after the request left the router's queue: "
                    + (b.succeeded() ? abbreviate(b.result().toString()) : "")));
            return;
        }
        TokenIdsFilter ids = tokenIds == ProxyHandler.TokenIds.NONE || status >= 300 ? null
                : new TokenIdsFilter(tokenIds == ProxyHandler.TokenIds.ASKED_BY_ROUTER, facts.stream());
        BodyRelay stages = new BodyRelay(ids == null ? List.of(observer) : List.of(observer, ids));
        ResponseHead.write(response, up, r, queuedNanos, stages.changesLength());
        up.handler(chunk -> {
            if (!current(r)) {
                return;
            }
            long now = System.nanoTime();
            r.firstByte(now, status);
            if (source != null) {
                source.heardFrom(now);
            }
            idle.heard(r);
            Buffer out = stages.chunk(chunk);
            if (out.length() > 0) {
                response.write(out);
            }
            if (response.writeQueueFull()) {
                up.pause();
                response.drainHandler(v -> up.resume());
            }
        });
        up.exceptionHandler(err -> {
            if (!current(r)) {
                return;
            }
            Runnable cut = () -> midStreamFailure(FailureKind.MIDSTREAM_DROP, 0, "the replica " + r.replicaId()
                    + " dropped the response mid-stream (" + err.getMessage() + "); the output is incomplete, retry the request");
            if (!headCommitted() && mayRetry()) {
                // Dropped after its head but before any byte went on to the client: as good as not answered.
                retryBeforeAnyByte(r, FailureKind.DROP_BEFORE_FIRST_BYTE, "dropped before its first byte (" + err.getMessage() + ")", cut);
            } else {
                cut.run();
            }
        });
        up.endHandler(v -> {
            if (!current(r)) {
                return;
            }
            r.firstByte(System.nanoTime(), status);
            Buffer rest = stages.end();
            if (rest.length() > 0) {
                response.write(rest);
            }
            if (ids != null) {
                // Before the client has the end of the answer: its next step may be placed with these keys.
                r.tokenIds(ids.promptTokenIds(), ids.outputTokenIds());
            }
            response.end();
            boolean completed = facts.stream() ? observer.completed() : status < 400;
            end(res -> res.finish(status, completed, observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
        });
    }

    private void upstreamFailedBeforeResponse(Reservation r, UpstreamCall.Failed f) {
        String failed = r.replicaId();
        if (f.refused) {
            // Refused: nothing listens. A connect that timed out is left to the health checks: a replica flooded
            // with new connections (or a starved router) is slow, not gone, and taking it out would fail requests.
            ctx.pool().markUnhealthy(failed);
        }
        String label = f.kind.label();
        LogFields.warn(LOG, "upstream failure before response", "replica", failed, "kind", label, "detail", f.getMessage());
        int status = f.kind.status(facts.dialect());
        if (!f.kind.retryElsewhere()) {
            // Another replica would not help: the router itself has no socket to give.
            ctx.metrics().error(label);
            failBeforeResponse(status, f.getMessage() + "; retry the request later", label);
            return;
        }
        Runnable giveUp = () -> {
            ctx.metrics().error(label);
            failBeforeResponse(status, f.kind == FailureKind.CONNECTION_CAP ? f.getMessage() + "; retry the request later"
                    : "replica " + failed + " failed before answering (" + label + "); " + tried.size()
                            + " replica(s) tried, no other one left within retryAttempts/retryBudget; retry the request", label);
        };
        if (mayRetry() && !headCommitted()) {
            attempt(previous -> {
                ctx.metrics().retry(failed);
                previous.fail(status, label, true);
            }, giveUp);
            return;
        }
        giveUp.run();
    }

    /** @param upstreamStatus the replica's status for {@link FailureKind#UPSTREAM_ERROR_IN_STREAM}, else unused */
    private void midStreamFailure(FailureKind kind, int upstreamStatus, String message) {
        if (phase == Phase.DONE) {
            return;
        }
        String label = kind.label(upstreamStatus);
        ctx.metrics().error(label);
        HttpClientRequest toCancel = upstream;
        int status = kind.status(facts.dialect());
        if (!response.headWritten() || keptAliveOnly()) {
            failBeforeResponse(status, message, label);
        } else {
            if (facts.stream()) {
                response.end(ApiErrors.streamEvent(facts.dialect(), status, message));
            } else {
                // A JSON body cut short must not look whole: break the connection so the client sees an error.
                response.reset();
            }
            int sent = response.getStatusCode();
            end(r -> r.fail(sent, label, observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
        }
        // Only now: resetting calls the upstream's handlers at once, and they must find the exchange done.
        if (toCancel != null) {
            toCancel.reset();
        }
    }

    private void failBeforeResponse(int status, String message, String label) {
        if (!response.headWritten() && !response.ended() && !response.closed()) {
            response.setStatusCode(status)
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(facts.dialect(), status, message));
        } else if (keptAliveOnly() && !response.ended() && !response.closed()) {
            // Only keep-alives went out: the error is the stream's first and last event.
            response.end(ApiErrors.streamEvent(facts.dialect(), status, message));
        }
        end(r -> r.fail(status, label, false));
    }

    private void clientGone() {
        if (phase == Phase.DONE) {
            return;
        }
        if (facts.stream() && observer.completed()) {
            // The completion event went on to the client: the answer is whole, only the body's end was still to come.
            // Codex closes at response.completed without reading on, so this is a finished answer, not a cancel.
            int status = response.getStatusCode();
            end(r -> r.finish(status, true, observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
        } else {
            end(r -> r.cancel(observer.cachedTokens(), observer.promptTokens(), observer.outputTokens()));
        }
        if (upstream != null) {
            // Cancels the engine's work, if any is left: vLLM aborts a request whose connection closes.
            upstream.reset();
        }
    }

    /** The head went out, and not only with the queue's keep-alives (those still allow a retry). */
    private boolean headCommitted() {
        return response.headWritten() && !keptAliveOnly();
    }

    /** Only the queue's keep-alives reached the client: no byte of an engine's answer yet. */
    private boolean keptAliveOnly() {
        return keepAlive.headWritten() && (reservation == null || reservation.firstByteNanos() < 0);
    }

    private static String abbreviate(String s) {
        String one = s.replace('\n', ' ').trim();
        return one.length() > 300 ? one.substring(0, 300) + "…" : one;
    }

    /** The attempt's replica sent nothing for the stream idle timeout. */
    private void silent(Reservation attempt) {
        if (!current(attempt)) {
            return;
        }
        long ms = idle.timeoutMs();
        String replica = attempt.replicaId();
        Runnable cut = () -> midStreamFailure(FailureKind.IDLE_TIMEOUT, 0, "replica " + replica + " sent nothing for " + ms
                + " ms (stream idle timeout); the request was cancelled");
        if (!headCommitted() && mayRetry()) {
            // Nothing reached the client yet, so a replica that stalls past the idle timeout is left for another.
            retryBeforeAnyByte(attempt, FailureKind.IDLE_TIMEOUT, "silent for " + ms + " ms before answering", cut);
            return;
        }
        cut.run();
    }

    /** The attempt on {@code r} failed while nothing of its answer had reached the client: another replica gets the request. */
    private void retryBeforeAnyByte(Reservation r, FailureKind kind, String why, Runnable noneLeft) {
        HttpClientRequest toCancel = upstream;
        LogFields.warn(LOG, "retrying elsewhere", "replica", r.replicaId(), "kind", kind.label(), "detail", why, "attempt", tried.size());
        if (!response.headWritten()) {
            // Headers a failed relay already copied must not leak into the retry's answer.
            response.headers().clear();
            response.setChunked(false);
        }
        attempt(previous -> {
            ctx.metrics().retry(r.replicaId());
            previous.fail(kind.status(facts.dialect()), kind.label(), true);
        }, noneLeft);
        if (toCancel != null) {
            toCancel.reset();
        }
    }

    /** Whether the retry budget allows one more attempt (the replicas tried so far are never tried again). */
    private boolean mayRetry() {
        return ctx.retries().allowsAnother(tried.size(), firstAttemptNanos, System.nanoTime());
    }

    /** The exchange is over: the open reservation, if any, is closed the given way. */
    private void end(Consumer<Reservation> close) {
        if (phase == Phase.DONE) {
            return;
        }
        phase = Phase.DONE;
        idle.stop();
        keepAlive.stop();
        if (reservation != null && !reservation.closed()) {
            close.accept(reservation);
        }
        // Admission hears of the end here, once, however the request ended.
        ctx.admission().release(facts, waiter);
        ctx.inFlight().end();
    }
}
