package io.lmwarden.bench.run;

import io.lmwarden.bench.client.AgentApis;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.bench.client.StepOutcome;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.trace.Trace;
import io.lmwarden.bench.trace.TracePrompt;
import io.lmwarden.bench.trace.TraceRequest;
import io.lmwarden.bench.trace.TraceSession;
import io.lmwarden.bench.workload.Conversation;
import io.lmwarden.bench.workload.PseudoText;
import io.lmwarden.bench.workload.WorkloadSpec;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Replays a trace against one target: every session's first turn at its timestamp, a session's later turns after their
 * delay (else at their timestamp, not before the previous turn ended), requests without a session at their timestamps,
 * all on the compressed clock. A request's prompt is the text of its hash ids, so requests that share ids share a
 * prefix. All state lives on one Vert.x context.
 */
public final class ReplayDriver {

    private static final Duration REQUEST_IDLE_TIMEOUT = Duration.ofMinutes(15);
    static final String OVER_WINDOW = "skipped: prompt + output over the model's window";

    private final Context context;
    private final StreamingClient client;
    private final RequestTarget target;
    private final Trace trace;
    private final ApiDialect api;
    private final TimeScale clock;
    private final long runNonce;
    private final long seed;
    private final StepLog log;
    private final Set<Long> blocksSent = new HashSet<>();
    private final Set<Replayed> live = new LinkedHashSet<>();

    private long startNanos;
    private boolean stopping;
    private int inFlight;
    private Promise<Void> drained;
    /** ∫ sessions in flight dt, wall nanos × sessions, up to {@link #changedNanos}: Little's law's L over a window. */
    private double sessionNanos;
    private long changedNanos;

    public ReplayDriver(Context context, StreamingClient client, RequestTarget target, Trace trace, ApiDialect api, TimeScale clock,
                        long runNonce, long seed, StepLog log) {
        this.context = context;
        this.client = client;
        this.target = target;
        this.trace = trace;
        this.api = api;
        this.clock = clock;
        this.runNonce = runNonce;
        this.seed = seed;
        this.log = log;
    }

    /** Schedules every session's first turn, from now. */
    public void start() {
        context.runOnContext(v -> {
            startNanos = System.nanoTime();
            changedNanos = startNanos;
            List<TraceSession> sessions = trace.sessions();
            for (int i = 0; i < sessions.size(); i++) {
                Replayed s = new Replayed(i, sessions.get(i));
                at(startNanos + clock.wallNanos(Duration.ofNanos(trace.replay().workloadNanos(s.session.startMs()))), () -> send(s));
            }
        });
    }

    /** Stops starting requests; completes when every request in flight has ended. */
    public Future<Void> drain() {
        Promise<Void> promise = Promise.promise();
        context.runOnContext(v -> {
            stopping = true;
            drained = promise;
            if (inFlight == 0) {
                promise.tryComplete();
            }
        });
        return promise.future();
    }

    /** The sessions in flight now (first turn sent, last not ended), since when. */
    public Future<List<SessionDriver.LiveSession>> liveSessions() {
        Promise<List<SessionDriver.LiveSession>> promise = Promise.promise();
        context.runOnContext(v -> promise.complete(live.stream()
                .map(s -> new SessionDriver.LiveSession(s.index, s.startedNanos, false)).toList()));
        return promise.future();
    }

    /** ∫ sessions in flight dt up to now, in wall nanos × sessions. */
    public Future<Double> sessionNanos() {
        Promise<Double> promise = Promise.promise();
        context.runOnContext(v -> {
            account(System.nanoTime());
            promise.complete(sessionNanos);
        });
        return promise.future();
    }

    private void account(long now) {
        sessionNanos += (double) live.size() * (now - changedNanos);
        changedNanos = now;
    }

    private void at(long wallNanos, Runnable action) {
        long delayMillis = Math.max(0, (wallNanos - System.nanoTime()) / 1_000_000);
        if (delayMillis < 1) {
            context.runOnContext(v -> action.run());
        } else {
            context.owner().setTimer(delayMillis, t -> action.run());
        }
    }

    private void send(Replayed s) {
        if (stopping) {
            return;
        }
        TraceRequest r = s.session.turns().get(s.turn);
        long now = System.nanoTime();
        if (s.startedNanos == 0) {
            account(now);
            s.startedNanos = now;
            live.add(s);
        }
        if (target.contextWindow() > 0 && (long) r.inputLength() + r.outputLength() > target.contextWindow()) {
            // A request the model could not take: counted under its own cause, and the session goes on.
            ended(s, r, new StepOutcome(null, null, now, 0, now, 0, -1, -1, "", OVER_WINDOW, 0, false), 0, -1);
            return;
        }
        Conversation conversation = new Conversation("");
        conversation.addUser(TracePrompt.of(r, trace.replay().blockSize(), seed));
        byte[] body = AgentApis.requestBody(api, target.model(), r.outputLength(), conversation);
        int cacheable = cacheableTokens(r);
        for (long id : r.hashIds()) {
            blocksSent.add(id);
        }
        int router = target.routerFor(s.index, s.turn + 1);
        int promptEstimate = (int) (conversation.promptChars() / WorkloadSpec.CHARS_PER_TOKEN);
        Duration idle = Duration.ofNanos(clock.wallNanos(REQUEST_IDLE_TIMEOUT));
        inFlight++;
        client.send(target.routerUrls().get(router), api, s.session.id() == null ? null : AgentApis.sessionHeader(api), s.sessionKey, body,
                        idle.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : idle)
                .onComplete(done -> {
                    inFlight--;
                    StepOutcome o = done.result();
                    ended(s, r, o, OracleBound.firstStep(o.promptTokens() > 0 ? o.promptTokens() : promptEstimate, cacheable,
                            cacheable > 0), router);
                    if (stopping && inFlight == 0 && drained != null) {
                        drained.tryComplete();
                    }
                });
    }

    /** Leading blocks whose ids some earlier request sent: what placement without eviction could serve from cache. */
    private int cacheableTokens(TraceRequest r) {
        int blocks = 0;
        while (blocks < r.hashIds().length && blocksSent.contains(r.hashIds()[blocks])) {
            blocks++;
        }
        return (int) Math.min((long) blocks * trace.replay().blockSize(), Integer.MAX_VALUE);
    }

    private void ended(Replayed s, TraceRequest r, StepOutcome o, int oracle, int router) {
        boolean last = s.turn == s.session.turns().size() - 1;
        Boolean stayed = s.turn == 0 || o.replica() == null || s.previousReplica == null ? null : o.replica().equals(s.previousReplica);
        log.add(new StepRecord(s.index, s.turn + 1, o.sentNanos(), o.firstTokenNanos(), o.endNanos(), o.replica(), o.decision(),
                o.outputTokens(), o.promptTokens() > 0 ? o.promptTokens() : r.inputLength(), o.cachedTokens(), oracle, stayed,
                last && o.ok(), o.error(), s.startedNanos, o.queueWaitNanos(), o.rejected(), Math.max(0, router), "trace", 1));
        if (o.replica() != null) {
            s.previousReplica = o.replica();
        }
        if (last) {
            account(System.nanoTime());
            live.remove(s);
            return;
        }
        s.turn++;
        TraceRequest next = s.session.turns().get(s.turn);
        long now = System.nanoTime();
        if (next.hasDelay()) {
            at(now + clock.wallNanos(Duration.ofNanos(trace.replay().workloadNanos(next.delayMs()))), () -> send(s));
        } else if (next.hasTimestamp()) {
            at(Math.max(now, startNanos + clock.wallNanos(Duration.ofNanos(trace.replay().workloadNanos(next.timestampMs())))),
                    () -> send(s));
        } else {
            send(s);
        }
    }

    /** One session of the trace as it is played. */
    private final class Replayed {
        final int index;
        final TraceSession session;
        final String sessionKey;
        int turn;
        long startedNanos;
        String previousReplica;

        Replayed(int index, TraceSession session) {
            this.index = index;
            this.session = session;
            SplittableRandom ids = new SplittableRandom(PseudoText.mix(seed ^ runNonce * 31, "trace-session-" + session.id()));
            this.sessionKey = session.id() == null ? null : new UUID(ids.nextLong(), ids.nextLong()).toString();
        }
    }
}
