package io.lmwarden.bench.workload;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Everything the n-th session of a run will send, derived only from the seed and n, so that every
 * variant replays the same sessions in the same order.
 */
public final class SessionScript {

    private final WorkloadSpec spec;
    private final int index;
    private final String sessionId;

    /**
     * @param runNonce distinguishes runs against the same long-lived router (so that a variant does not
     *                 inherit the previous variant's session pins); prompts do not depend on it
     */
    public SessionScript(WorkloadSpec spec, int index, long runNonce) {
        this.spec = spec;
        this.index = index;
        SplittableRandom ids = new SplittableRandom(PseudoText.mix(spec.seed() ^ runNonce * 31, "session-id-" + index));
        this.sessionId = new UUID(ids.nextLong(), ids.nextLong()).toString();
    }

    public int index() {
        return index;
    }

    public String sessionId() {
        return sessionId;
    }

    /** The prompt text of step {@code step} (1-based): the unique first message, then follow-ups. */
    public String userText(int step) {
        if (step == 1) {
            return PseudoText.of(spec.seed(), "first-" + index, spec.firstTokens());
        }
        return PseudoText.of(spec.seed(), "step-" + index + "-" + step, spec.stepTokens());
    }

    /** The first message every session of a template starts with: the same for all, of the unique first message's size. */
    public String templateFirstText() {
        return PseudoText.of(spec.seed(), "first-template", spec.firstTokens());
    }

    /** The pause after step {@code step} ends and before the next one starts, in workload time. */
    public Duration thinkTimeAfter(int step) {
        long meanNanos = spec.thinkTime().toNanos();
        if (meanNanos == 0) {
            return Duration.ZERO;
        }
        double u = new SplittableRandom(PseudoText.mix(spec.seed(), "think-" + index + "-" + step)).nextDouble();
        double factor = 1 - spec.thinkJitter() + 2 * spec.thinkJitter() * u;
        return Duration.ofNanos((long) (meanNanos * factor));
    }

    public int steps() {
        return spec.requestsPerSession();
    }
}
