package io.lmwarden.bench.workload;

import io.lmwarden.common.api.ApiDialect;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Everything the n-th session of a run will send, derived only from the seed, its class and n, so that every
 * variant replays the same sessions in the same order. Sessions a stage adds with a steady start
 * ({@link SessionStart#STEADY}) are numbered apart (the j-th of them is the same in every variant) and join their
 * life at {@link #joinStep()}.
 */
public final class SessionScript {

    private static final int LENGTH_BIAS_TRIES = 100_000;

    private final SessionClass cls;
    private final SessionShape shape;
    private final int index;
    private final String tag;
    private final String sessionId;
    private final int steps;
    private final int joinStep;

    /**
     * @param runNonce distinguishes runs against the same long-lived router (so that a variant does not
     *                 inherit the previous variant's session pins); prompts do not depend on it
     */
    public SessionScript(SessionClass cls, int index, long runNonce) {
        this(cls, index, String.valueOf(index), runNonce, false);
    }

    /** A session of the flag shorthand's single class. */
    public SessionScript(WorkloadSpec spec, int index, long runNonce) {
        this(SessionClass.single(spec, ApiDialect.ANTHROPIC_MESSAGES), index, runNonce);
    }

    /**
     * The {@code j}-th session a stage adds with a steady start: its length drawn in proportion to itself (a session
     * found running is more likely a long one), and a step uniform among its steps to join at. Its record index is
     * {@code -(j + 1)}, apart from the fresh sessions' 0, 1, 2, …
     */
    public static SessionScript steady(SessionClass cls, int j, long runNonce) {
        return new SessionScript(cls, -(j + 1), "steady-" + j, runNonce, true);
    }

    private SessionScript(SessionClass cls, int index, String tag, long runNonce, boolean steady) {
        this.cls = cls;
        this.shape = cls.shape();
        this.index = index;
        this.tag = tag;
        SplittableRandom ids = new SplittableRandom(PseudoText.mix(shape.seed() ^ runNonce * 31, "session-id-" + tag));
        this.sessionId = new UUID(ids.nextLong(), ids.nextLong()).toString();
        if (steady) {
            this.steps = lengthBiasedCalls();
            this.joinStep = 1 + random("join-" + tag).nextInt(steps);
        } else {
            this.steps = Math.max(1, (int) Math.round(shape.calls().sample(random("steps-" + tag))));
            this.joinStep = 1;
        }
    }

    /**
     * The model this session runs on: one of {@code adapters} (its name), or null for the base model. A draw of its own
     * stream, so the same session is on the same adapter in every variant and its prompts do not change with the mix.
     */
    public String adapter(AdapterMix adapters) {
        return adapters.present() ? adapters.pick(random("adapter-" + tag)) : null;
    }

    /** A draw of calls per session weighted by the calls themselves, by rejection against a high quantile. */
    private int lengthBiasedCalls() {
        double bound = Math.max(1, shape.calls().quantile(0.999));
        SplittableRandom r = random("steps-" + tag);
        int calls = 1;
        for (int i = 0; i < LENGTH_BIAS_TRIES; i++) {
            calls = Math.max(1, (int) Math.round(shape.calls().sample(r)));
            if (r.nextDouble() * bound < calls) {
                break;
            }
        }
        return calls;
    }

    private SplittableRandom random(String label) {
        return new SplittableRandom(PseudoText.mix(shape.seed(), cls.labelPrefix() + label));
    }

    /** 0, 1, 2, … for fresh sessions; negative for sessions a stage added with a steady start. */
    public int index() {
        return index;
    }

    public SessionClass sessionClass() {
        return cls;
    }

    public String sessionId() {
        return sessionId;
    }

    /** Calls in the whole session (compaction calls among them). */
    public int steps() {
        return steps;
    }

    /** The step the session's first request is: 1, or later for a steady start (the steps before it are history). */
    public int joinStep() {
        return joinStep;
    }

    /** New user tokens of step {@code step} (1-based): the first message, then tool results. */
    public int userTokens(int step) {
        if (step == 1) {
            String label = cls.sharedFirstMessage() ? "first-size-template" : "first-size-" + tag;
            return Math.max(1, (int) Math.round(draw(shape.firstTokens(), label)));
        }
        return Math.max(1, (int) Math.round(draw(shape.stepTokens(), "grow-" + tag + "-" + step)));
    }

    /**
     * The prompt text of step {@code step}: the first message (unique to the session, or the class's template), then
     * follow-ups, of {@code tokens} tokens (a first message cut to fit the window is the start of the full one).
     */
    public String userText(int step, int tokens) {
        if (step == 1) {
            String label = cls.sharedFirstMessage() ? cls.labelPrefix() + "first-template" : cls.labelPrefix() + "first-" + tag;
            return PseudoText.of(shape.seed(), label, tokens);
        }
        return PseudoText.of(shape.seed(), cls.labelPrefix() + "step-" + tag + "-" + step, tokens);
    }

    /** {@link #userText(int, int)} at its drawn size. */
    public String userText(int step) {
        return userText(step, userTokens(step));
    }

    /** {@code max_tokens} of step {@code step}: the reply's length, with the simulator's fixed output lengths. */
    public int maxTokens(int step) {
        return Math.max(1, (int) Math.round(draw(shape.maxTokens(), "out-" + tag + "-" + step)));
    }

    /** A reply the session received before it joined the run (steady start): deterministic filler of that length. */
    public String historyReply(int step, int tokens) {
        return PseudoText.of(shape.seed(), cls.labelPrefix() + "reply-" + tag + "-" + step, tokens);
    }

    /** The pause after step {@code step} ends and before the next one starts, in workload time. */
    public Duration thinkTimeAfter(int step) {
        if (shape.pause().isConstant() && shape.pause().quantile(0) == 0) {
            return Duration.ZERO;
        }
        return Duration.ofNanos((long) draw(shape.pause(), "think-" + tag + "-" + step));
    }

    /**
     * How long after a stage starts a steady-start session sends its first request: the rest of the pause the stage
     * found it in. A session found pausing is more likely in a long pause, so the pause is drawn in proportion to its
     * length, and the part of it still to run is uniform. Zero for fresh sessions and for a join at step 1.
     */
    public Duration joinDelay() {
        if (joinStep == 1) {
            return Duration.ZERO;
        }
        SplittableRandom r = random("join-pause-" + tag);
        Distribution pause = shape.pause();
        double nanos = pause.quantile(0.5);
        if (!pause.isConstant()) {
            double bound = Math.max(1, pause.quantile(0.9999));
            for (int i = 0; i < LENGTH_BIAS_TRIES; i++) {
                nanos = pause.sample(r);
                if (r.nextDouble() * bound < nanos) {
                    break;
                }
            }
        }
        return Duration.ofNanos((long) (nanos * r.nextDouble()));
    }

    private double draw(Distribution d, String label) {
        return d.isConstant() ? d.quantile(0.5) : d.sample(random(label));
    }
}
