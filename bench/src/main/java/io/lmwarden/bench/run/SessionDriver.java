package io.lmwarden.bench.run;

import io.lmwarden.bench.client.ApiFlavour;
import io.lmwarden.bench.client.StepOutcome;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.workload.Conversation;
import io.lmwarden.bench.workload.SessionScript;
import io.lmwarden.bench.workload.SharedPrompt;
import io.lmwarden.bench.workload.WorkloadSpec;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
    private final String baseUrl;
    private final ApiFlavour api;
    private final String model;
    private final WorkloadSpec spec;
    private final TimeScale clock;
    private final long runNonce;
    private final String systemPrompt;
    private final StepLog log;

    private boolean sharedFirstMessage;
    private boolean keyless;
    private int target;
    private int active;
    private int nextSession;
    private boolean systemPromptSent;
    private Promise<Void> drained;

    public SessionDriver(Context context, StreamingClient client, String baseUrl, ApiFlavour api, String model,
                         WorkloadSpec spec, TimeScale clock, long runNonce, StepLog log) {
        this.context = context;
        this.client = client;
        this.baseUrl = baseUrl;
        this.api = api;
        this.model = model;
        this.spec = spec;
        this.clock = clock;
        this.runNonce = runNonce;
        this.systemPrompt = SharedPrompt.of(spec);
        this.log = log;
    }

    /** Sessions all start with the same first message, and/or send no session key. */
    public void identity(boolean sharedFirstMessage, boolean keyless) {
        this.sharedFirstMessage = sharedFirstMessage;
        this.keyless = keyless;
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
        SessionState s = new SessionState(new SessionScript(spec, nextSession++, runNonce), new Conversation(systemPrompt));
        sendStep(s);
    }

    private void sendStep(SessionState s) {
        if (target == 0) {
            endSession(Duration.ZERO);
            return;
        }
        s.step++;
        s.conversation.addUser(sharedFirstMessage && s.step == 1 ? s.script.templateFirstText() : s.script.userText(s.step));
        byte[] body = api.requestBody(model, spec.maxOutputTokens(), s.conversation);
        int promptEstimate = (int) (s.conversation.promptChars() / WorkloadSpec.CHARS_PER_TOKEN);
        boolean systemSeen = systemPromptSent;
        if (s.step == 1) {
            systemPromptSent = true;
        }
        Duration idle = Duration.ofNanos(clock.wallNanos(REQUEST_IDLE_TIMEOUT));
        client.send(baseUrl, api, keyless ? null : s.script.sessionId(), body, idle.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : idle)
                .onComplete(done -> onStepEnded(s, done.result(), promptEstimate, systemSeen));
    }

    private void onStepEnded(SessionState s, StepOutcome outcome, int promptEstimate, boolean systemSeen) {
        int prompt = outcome.promptTokens() > 0 ? outcome.promptTokens() : promptEstimate;
        int oracle = s.step == 1
                ? OracleBound.firstStep(prompt, spec.systemTokens(), systemSeen)
                : OracleBound.followUp(prompt, s.previousPrompt, s.previousOutput);
        Boolean stayed = s.step == 1 || outcome.replica() == null || s.previousReplica == null
                ? null
                : outcome.replica().equals(s.previousReplica);
        boolean last = outcome.ok() && s.step == s.script.steps();
        log.add(new StepRecord(s.script.index(), s.step, outcome.sentNanos(), outcome.firstTokenNanos(), outcome.endNanos(),
                outcome.replica(), outcome.decision(), outcome.outputTokens(), prompt, outcome.cachedTokens(), oracle,
                stayed, last, outcome.error()));
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
