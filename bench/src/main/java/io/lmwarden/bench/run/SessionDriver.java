package io.lmwarden.bench.run;

import io.lmwarden.bench.client.AgentApis;
import io.lmwarden.bench.client.StepOutcome;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.workload.ClassSchedule;
import io.lmwarden.bench.workload.SessionClass;
import io.lmwarden.bench.workload.SessionContext;
import io.lmwarden.bench.workload.SessionKeying;
import io.lmwarden.bench.workload.SessionScript;
import io.lmwarden.bench.workload.SessionStart;
import io.lmwarden.bench.workload.SharedPrompt;
import io.lmwarden.bench.workload.Workload;
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

/**
 * Closed-loop agent sessions against one target: each session sends its next step when the previous
 * one has ended and its think time has passed; a finished session is replaced while fewer than the
 * target number run. All state lives on one Vert.x context, so nothing here needs a lock.
 */
public final class SessionDriver {

    /** After a failed step the session is dropped; its replacement waits this long (workload time). */
    private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);
    private static final Duration REQUEST_IDLE_TIMEOUT = Duration.ofMinutes(15);

    private final Context context;
    private final StreamingClient client;
    private final RequestTarget target;
    private final Workload workload;
    private final ClassSchedule freshSchedule;
    private final ClassSchedule steadySchedule;
    private final TimeScale clock;
    private final long runNonce;
    /**
     * System prompts by label ({@link SessionClass#systemLabel(String)}), size (classes that share a prompt may send more
     * or less of it) and seed: each class's, and its adapters' once a session uses them.
     */
    private final java.util.Map<String, String> systemPrompts = new java.util.HashMap<>();
    private final StepLog log;
    private final Set<SessionState> live = new LinkedHashSet<>();

    private int wanted;
    private int active;
    private int nextSession;
    private int nextSteady;
    /** Prompt starts some session has sent already: system labels, and system + first template for templated classes. */
    private final Set<String> startsSent = new HashSet<>();
    private Promise<Void> drained;

    public SessionDriver(Context context, StreamingClient client, RequestTarget target, Workload workload, TimeScale clock,
                         long runNonce, StepLog log) {
        this.context = context;
        this.client = client;
        this.target = target;
        this.workload = workload;
        this.freshSchedule = new ClassSchedule(workload.classes());
        this.steadySchedule = new ClassSchedule(workload.classes());
        this.clock = clock;
        this.runNonce = runNonce;
        workload.classes().forEach(c -> systemPrompt(c, null));
        this.log = log;
    }

    /**
     * Runs {@code sessions} concurrent sessions from now on. The sessions this adds start at once, or, with a steady
     * start, somewhere in their life; replacements of finished sessions always start fresh.
     */
    public void setConcurrency(int sessions) {
        context.runOnContext(v -> {
            wanted = sessions;
            while (active < wanted) {
                startAdded();
            }
        });
    }

    /** Stops starting steps; completes when every in-flight step has ended. */
    public Future<Void> drain() {
        Promise<Void> promise = Promise.promise();
        context.runOnContext(v -> {
            wanted = 0;
            drained = promise;
            if (active == 0) {
                promise.tryComplete();
            }
        });
        return promise.future();
    }

    /** The sessions running now (their first request sent, their last not ended): censored session times. */
    public Future<List<LiveSession>> liveSessions() {
        Promise<List<LiveSession>> promise = Promise.promise();
        context.runOnContext(v -> {
            List<LiveSession> out = new ArrayList<>();
            for (SessionState s : live) {
                if (s.startedNanos != 0) {
                    out.add(new LiveSession(s.script.index(), s.startedNanos, s.script.joinStep() > 1));
                }
            }
            promise.complete(out);
        });
        return promise.future();
    }

    /** A session still running at some moment: since when (its first request, wall clock), and whether it joined mid-life. */
    public record LiveSession(int session, long startedNanos, boolean joined) {
    }

    private void startAdded() {
        if (workload.start() == SessionStart.STEADY) {
            int c = steadySchedule.next();
            active++;
            SessionState s = newSession(SessionScript.steady(workload.classes().get(c), nextSteady++, runNonce));
            s.context.buildHistory();
            s.step = s.script.joinStep() - 1;
            Duration delay = s.script.joinDelay();
            if (delay.isZero()) {
                sendStep(s);
            } else {
                context.owner().setTimer(clock.wallMillis(delay), t -> sendStep(s));
            }
            return;
        }
        startFresh();
    }

    private void startFresh() {
        active++;
        int c = freshSchedule.next();
        sendStep(newSession(new SessionScript(workload.classes().get(c), nextSession++, runNonce)));
    }

    private SessionState newSession(SessionScript script) {
        String adapter = script.adapter(workload.adapters());
        SessionClass cls = script.sessionClass();
        SessionState s = new SessionState(script, new SessionContext(script, systemPrompt(cls, adapter), target.contextWindow()),
                adapter);
        live.add(s);
        return s;
    }

    private String systemPrompt(SessionClass cls, String adapter) {
        return systemPrompts.computeIfAbsent(cls.systemLabel(adapter) + "/" + cls.shape().systemTokens() + "/" + cls.shape().seed(),
                k -> SharedPrompt.of(cls, adapter));
    }

    private void sendStep(SessionState s) {
        if (wanted == 0) {
            endSession(s, Duration.ZERO);
            return;
        }
        s.step++;
        if (s.startedNanos == 0) {
            s.startedNanos = System.nanoTime();
        }
        SessionContext.Call call = s.context.next(s.step);
        SessionClass cls = s.script.sessionClass();
        SessionKeying keying = cls.keying();
        byte[] body = AgentApis.requestBody(cls.api(), s.adapter != null ? s.adapter : target.model(), call.maxTokens(),
                s.context.conversation(),
                keying == SessionKeying.METADATA_USER_ID ? s.script.sessionId() : null);
        int promptEstimate = (int) (s.context.conversation().promptChars() / WorkloadSpec.CHARS_PER_TOKEN);
        int cacheableStart = call.restart() ? cacheableStart(s, cls, cls.systemLabel(s.adapter)) : -1;
        Duration idle = Duration.ofNanos(clock.wallNanos(REQUEST_IDLE_TIMEOUT));
        int router = target.routerFor(s.script.index(), s.step);
        client.send(target.routerUrls().get(router), cls.api(), keying.header(), s.script.sessionId(), body,
                        idle.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : idle)
                .onComplete(done -> onStepEnded(s, call, done.result(), promptEstimate, cacheableStart, router));
    }

    /**
     * What of a restarting prompt an earlier session may have left in some cache: the system prompt, and the first
     * message too when the class starts from a template (and the session is at its first step). {@code systemLabel} is
     * the session's own (an adapter's cache is its own: vLLM keys blocks by adapter).
     */
    private int cacheableStart(SessionState s, SessionClass cls, String systemLabel) {
        int seenTokens = 0;
        String templateKey = systemLabel + "+" + cls.name() + "-first-template";
        if (s.step == 1 && cls.sharedFirstMessage() && startsSent.contains(templateKey)) {
            seenTokens = cls.shape().systemTokens() + s.script.userTokens(1);
        } else if (startsSent.contains(systemLabel)) {
            seenTokens = cls.shape().systemTokens();
        }
        startsSent.add(systemLabel);
        if (s.step == 1 && cls.sharedFirstMessage()) {
            startsSent.add(templateKey);
        }
        return seenTokens;
    }

    /** The client-side round robin: the router of step {@code step} (1-based) of session {@code session}. */
    static int routerFor(int session, int step, int routers) {
        return routerFor(session, step, routers, 1);
    }

    /**
     * As {@link #routerFor(int, int, int)} for a session that keeps one router for {@code stepsPerRouter} consecutive
     * steps and then moves to the next (a client whose connection ends every so many steps).
     */
    static int routerFor(int session, int step, int routers, int stepsPerRouter) {
        return Math.floorMod(session + (step - 1) / stepsPerRouter, routers);
    }

    private void onStepEnded(SessionState s, SessionContext.Call call, StepOutcome outcome, int promptEstimate, int cacheableStart,
                             int router) {
        int prompt = outcome.promptTokens() > 0 ? outcome.promptTokens() : promptEstimate;
        int oracle = cacheableStart >= 0
                ? OracleBound.firstStep(prompt, cacheableStart, cacheableStart > 0)
                : OracleBound.followUp(prompt, s.previousPrompt, s.previousOutput);
        Boolean stayed = s.step == s.script.joinStep() || outcome.replica() == null || s.previousReplica == null
                ? null
                : outcome.replica().equals(s.previousReplica);
        boolean last = outcome.ok() && s.step == s.script.steps();
        log.add(new StepRecord(s.script.index(), s.step, outcome.sentNanos(), outcome.firstTokenNanos(), outcome.endNanos(),
                outcome.replica(), outcome.decision(), outcome.outputTokens(), prompt, outcome.cachedTokens(), oracle,
                stayed, last, outcome.error(), s.startedNanos, outcome.queueWaitNanos(), outcome.rejected(), router,
                s.script.sessionClass().name(), s.script.joinStep(), s.adapter));
        if (!outcome.ok()) {
            endSession(s, ERROR_BACKOFF);
            return;
        }
        if (last) {
            endSession(s, Duration.ZERO);
            return;
        }
        s.context.replied(call, outcome.replyText());
        s.previousPrompt = prompt;
        s.previousOutput = outcome.outputTokens();
        s.previousReplica = outcome.replica();
        // A compaction is followed at once by the call it made room for; other calls by a tool run's pause.
        Duration think = call.compaction() ? Duration.ZERO : s.script.thinkTimeAfter(s.step);
        if (think.isZero()) {
            sendStep(s);
        } else {
            context.owner().setTimer(clock.wallMillis(think), t -> sendStep(s));
        }
    }

    private void endSession(SessionState s, Duration delayBeforeReplacement) {
        live.remove(s);
        active--;
        if (active == 0 && wanted == 0 && drained != null) {
            drained.tryComplete();
            return;
        }
        if (active < wanted) {
            if (delayBeforeReplacement.isZero()) {
                replaceIfStillNeeded();
            } else {
                active++; // the replacement slot is reserved while it waits
                context.owner().setTimer(clock.wallMillis(delayBeforeReplacement), t -> {
                    active--;
                    replaceIfStillNeeded();
                });
            }
        }
    }

    private void replaceIfStillNeeded() {
        if (active < wanted) {
            startFresh();
        } else if (active == 0 && drained != null) {
            drained.tryComplete();
        }
    }

    private static final class SessionState {
        final SessionScript script;
        final SessionContext context;
        /** The LoRA adapter the session runs on, or null for the base model. */
        final String adapter;
        int step;
        int previousPrompt;
        int previousOutput;
        String previousReplica;
        long startedNanos;

        SessionState(SessionScript script, SessionContext context, String adapter) {
            this.script = script;
            this.context = context;
            this.adapter = adapter;
        }
    }
}
