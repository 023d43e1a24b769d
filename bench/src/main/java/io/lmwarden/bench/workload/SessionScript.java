package io.lmwarden.bench.workload;

import io.lmwarden.bench.client.ApiFlavour;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Everything the n-th session of a run will send, derived only from the seed, its class and n, so that every
 * variant replays the same sessions in the same order.
 */
public final class SessionScript {

    private final SessionClass cls;
    private final WorkloadSpec spec;
    private final int index;
    private final String sessionId;
    private final int steps;

    /**
     * @param runNonce distinguishes runs against the same long-lived router (so that a variant does not
     *                 inherit the previous variant's session pins); prompts do not depend on it
     */
    public SessionScript(SessionClass cls, int index, long runNonce) {
        this.cls = cls;
        this.spec = cls.shape();
        this.index = index;
        SplittableRandom ids = new SplittableRandom(PseudoText.mix(spec.seed() ^ runNonce * 31, "session-id-" + index));
        this.sessionId = new UUID(ids.nextLong(), ids.nextLong()).toString();
        int extra = cls.maxFollowUpSteps() - spec.followUpSteps();
        int followUps = spec.followUpSteps() + (extra == 0 ? 0
                : new SplittableRandom(PseudoText.mix(spec.seed(), cls.labelPrefix() + "steps-" + index)).nextInt(extra + 1));
        this.steps = 1 + followUps;
    }

    /** A session of the flag shorthand's single class. */
    public SessionScript(WorkloadSpec spec, int index, long runNonce) {
        this(SessionClass.single(spec, ApiFlavour.ANTHROPIC), index, runNonce);
    }

    public int index() {
        return index;
    }

    public SessionClass sessionClass() {
        return cls;
    }

    public String sessionId() {
        return sessionId;
    }

    /**
     * The prompt text of step {@code step} (1-based): the first message (unique to the session, or the class's
     * template), then follow-ups.
     */
    public String userText(int step) {
        if (step == 1) {
            String label = cls.sharedFirstMessage() ? cls.labelPrefix() + "first-template" : cls.labelPrefix() + "first-" + index;
            return PseudoText.of(spec.seed(), label, spec.firstTokens());
        }
        return PseudoText.of(spec.seed(), cls.labelPrefix() + "step-" + index + "-" + step, spec.stepTokens());
    }

    /** The pause after step {@code step} ends and before the next one starts, in workload time. */
    public Duration thinkTimeAfter(int step) {
        long meanNanos = spec.thinkTime().toNanos();
        if (meanNanos == 0) {
            return Duration.ZERO;
        }
        double u = new SplittableRandom(PseudoText.mix(spec.seed(), cls.labelPrefix() + "think-" + index + "-" + step)).nextDouble();
        double factor = 1 - spec.thinkJitter() + 2 * spec.thinkJitter() * u;
        return Duration.ofNanos((long) (meanNanos * factor));
    }

    public int steps() {
        return steps;
    }
}
