package io.lmwarden.bench.run;

import io.lmwarden.bench.client.StepOutcome;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.workload.ClassSchedule;
import io.lmwarden.bench.workload.Conversation;
import io.lmwarden.bench.workload.SessionClass;
import io.lmwarden.bench.workload.SessionKeying;
import io.lmwarden.bench.workload.SessionScript;
import io.lmwarden.bench.workload.SharedPrompt;
import io.lmwarden.bench.workload.Workload;
import io.lmwarden.bench.workload.WorkloadSpec;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
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
    private final List<String> routerUrls;
    private final String model;
    private final Workload workload;
    private final ClassSchedule schedule;
    private final TimeScale clock;
    private final long runNonce;
    private final List<String> systemPrompts = new ArrayList<>();
    private final StepLog log;

    private int target;
    private int active;
    private int nextSession;
    /** Prompt starts some session has sent already: system labels, and system + first template for templated classes. */
    private final Set<String> startsSent = new HashSet<>();
    private Promise<Void> drained;

    public SessionDriver(Context context, StreamingClient client, String baseUrl, String model,
                         Workload workload, TimeScale clock, long runNonce, StepLog log) {
        this(context, client, List.of(baseUrl), model, workload, clock, runNonce, log);
    }

    /**
     * {@code routerUrls}: the routers of one cluster (or one router). Step k of session n goes to router
     * (n + k) mod their number, so consecutive steps of a session always reach different routers and
     * first steps are spread over all of them.
     */
    public SessionDriver(Context context, StreamingClient client, List<String> routerUrls, String model,
                         Workload workload, TimeScale clock, long runNonce, StepLog log) {
        if (routerUrls.isEmpty()) {
            throw new IllegalArgumentException("no router to send steps to");
        }
        this.context = context;
        this.client = client;
        this.routerUrls = List.copyOf(routerUrls);
        this.model = model;
        this.workload = workload;
        this.schedule = new ClassSchedule(workload.classes());
        this.clock = clock;
        this.runNonce = runNonce;
        workload.classes().forEach(c -> systemPrompts.add(SharedPrompt.of(c)));
        this.log = log;
    }

    /** Runs {@code sessions} concurrent sessions from now on (new ones start at once). */
    public void setConcurrency(int sessions) {
        context.runOnContext(v -> {
            target = sessions;
            while (active < target) {
                startSession();
            }
        });
    }

    /** Stops starting steps; completes when every in-flight step has ended. */
    public Future<Void> drain() {
        Promise<Void> promise = Promise.promise();
        context.runOnContext(v -> {
            target = 0;
            drained = promise;
            if (active == 0) {
                promise.tryComplete();
            }
        });
        return promise.future();
    }

    private void startSession() {
        active++;
        int c = schedule.next();
        SessionState s = new SessionState(new SessionScript(workload.classes().get(c), nextSession++, runNonce),
                new Conversation(systemPrompts.get(c)));
        sendStep(s);
    }

    private void sendStep(SessionState s) {
        if (target == 0) {
            endSession(Duration.ZERO);
            return;
        }
        s.step++;
        if (s.step == 1) {
            s.startedNanos = System.nanoTime();
        }
        s.conversation.addUser(s.script.userText(s.step));
        SessionClass cls = s.script.sessionClass();
        SessionKeying keying = cls.keying();
        byte[] body = cls.api().requestBody(model, cls.shape().maxOutputTokens(), s.conversation,
                keying == SessionKeying.METADATA_USER_ID ? s.script.sessionId() : null);
        int promptEstimate = (int) (s.conversation.promptChars() / WorkloadSpec.CHARS_PER_TOKEN);
        // What of a first step's prompt an earlier session may have left in some cache: the system prompt, and
        // the first message too when the class starts from a template.
        int seenTokens = 0;
        if (s.step == 1) {
            String templateKey = cls.systemLabel() + "+" + cls.name() + "-first-template";
            if (cls.sharedFirstMessage() && startsSent.contains(templateKey)) {
                seenTokens = cls.shape().systemTokens() + cls.shape().firstTokens();
            } else if (startsSent.contains(cls.systemLabel())) {
                seenTokens = cls.shape().systemTokens();
            }
            startsSent.add(cls.systemLabel());
            if (cls.sharedFirstMessage()) {
                startsSent.add(templateKey);
            }
        }
        int cacheableStart = seenTokens;
        Duration idle = Duration.ofNanos(clock.wallNanos(REQUEST_IDLE_TIMEOUT));
        int router = routerFor(s.script.index(), s.step, routerUrls.size());
        client.send(routerUrls.get(router), cls.api(), keying.header(), s.script.sessionId(), body,
                        idle.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : idle)
                .onComplete(done -> onStepEnded(s, done.result(), promptEstimate, cacheableStart, router));
    }

    /** The client-side round robin: the router of step {@code step} (1-based) of session {@code session}. */
    static int routerFor(int session, int step, int routers) {
        return Math.floorMod(session + step - 1, routers);
    }

    private void onStepEnded(SessionState s, StepOutcome outcome, int promptEstimate, int cacheableStart, int router) {
        int prompt = outcome.promptTokens() > 0 ? outcome.promptTokens() : promptEstimate;
        int oracle = s.step == 1
                ? OracleBound.firstStep(prompt, cacheableStart, cacheableStart > 0)
                : OracleBound.followUp(prompt, s.previousPrompt, s.previousOutput);
        Boolean stayed = s.step == 1 || outcome.replica() == null || s.previousReplica == null
                ? null
                : outcome.replica().equals(s.previousReplica);
        boolean last = outcome.ok() && s.step == s.script.steps();
        log.add(new StepRecord(s.script.index(), s.step, outcome.sentNanos(), outcome.firstTokenNanos(), outcome.endNanos(),
                outcome.replica(), outcome.decision(), outcome.outputTokens(), prompt, outcome.cachedTokens(), oracle,
                stayed, last, outcome.error(), s.startedNanos, outcome.queueWaitNanos(), outcome.rejected(), router,
                s.script.sessionClass().name()));
        if (!outcome.ok()) {
            endSession(ERROR_BACKOFF);
            return;
        }
        if (last) {
            endSession(Duration.ZERO);
            return;
        }
        s.conversation.addAssistant(outcome.replyText());
        s.previousPrompt = prompt;
        s.previousOutput = outcome.outputTokens();
        s.previousReplica = outcome.replica();
        Duration think = s.script.thinkTimeAfter(s.step);
        if (think.isZero()) {
            sendStep(s);
        } else {
            context.owner().setTimer(clock.wallMillis(think), t -> sendStep(s));
        }
    }

    private void endSession(Duration delayBeforeReplacement) {
        active--;
        if (active == 0 && target == 0 && drained != null) {
            drained.tryComplete();
            return;
        }
        if (active < target) {
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
        if (active < target) {
            startSession();
        } else if (active == 0 && drained != null) {
            drained.tryComplete();
        }
    }

    private static final class SessionState {
        final SessionScript script;
        final Conversation conversation;
        int step;
        int previousPrompt;
        int previousOutput;
        String previousReplica;
        long startedNanos;

        SessionState(SessionScript script, Conversation conversation) {
            this.script = script;
            this.conversation = conversation;
        }
    }

    /** Where finished steps go; written on the driver's context, read by the stage runner. */
    public static final class StepLog {
        private final List<StepRecord> records = new ArrayList<>();

        synchronized void add(StepRecord r) {
            records.add(r);
        }

        public synchronized List<StepRecord> endedWithin(long fromNanos, long toNanos) {
            List<StepRecord> out = new ArrayList<>();
            for (StepRecord r : records) {
                if (r.endNanos() >= fromNanos && r.endNanos() < toNanos) {
                    out.add(r);
                }
            }
            return out;
        }
    }
}
