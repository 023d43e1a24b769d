package io.lmwarden.bench.workload;

import java.time.Duration;
import java.util.Locale;

/**
 * The sizes, lengths and pauses of one class's sessions, each a {@link Distribution} (a constant for the reference
 * workload).
 *
 * @param systemTokens the system prompt, the same for every session of the class
 * @param firstTokens  the first user message, drawn per session
 * @param calls        model calls per session (the first step plus the follow-ups), drawn per session
 * @param stepTokens   new user tokens per follow-up (tool results), drawn per step; the prompt grows by these plus the
 *                     previous reply
 * @param maxTokens    {@code max_tokens} per call, drawn per step; the simulator replies with exactly that many tokens,
 *                     so it is the output length
 * @param pause        pause between a reply and the next call (tool run and client time), nanoseconds of workload time
 * @param compaction   what happens when a context reaches the model's window
 * @param seed         drives every prompt, size and pause, so that variants see the same sessions
 */
public record SessionShape(int systemTokens, Distribution firstTokens, Distribution calls, Distribution stepTokens,
                           Distribution maxTokens, Distribution pause, Compaction compaction, long seed) {

    public SessionShape {
        if (systemTokens < 0) {
            throw new IllegalArgumentException("system prompt tokens must be >= 0");
        }
        for (Distribution d : java.util.List.of(firstTokens, calls, stepTokens, maxTokens)) {
            if (d.isConstant() && d.quantile(0.5) < 1) {
                throw new IllegalArgumentException("token sizes must be positive (system prompt may be 0), steps >= 0");
            }
        }
    }

    /** The flag shorthand's and a plain class's shape: constants, a uniform pause, no compaction. */
    public static SessionShape of(WorkloadSpec spec) {
        return of(spec, spec.followUpSteps());
    }

    /** As {@link #of(WorkloadSpec)} with follow-up steps uniform in {@code spec.followUpSteps()..maxFollowUps}. */
    public static SessionShape of(WorkloadSpec spec, int maxFollowUps) {
        return new SessionShape(spec.systemTokens(), new Distribution.Constant(spec.firstTokens()),
                new Distribution.IntRange(1 + spec.followUpSteps(), 1 + maxFollowUps), new Distribution.Constant(spec.stepTokens()),
                new Distribution.Constant(spec.maxOutputTokens()),
                new Distribution.Uniform(spec.thinkTime().toNanos(), spec.thinkJitter()), Compaction.NEVER, spec.seed());
    }

    public SessionShape withSeed(long s) {
        return new SessionShape(systemTokens, firstTokens, calls, stepTokens, maxTokens, pause, compaction, s);
    }

    /**
     * The largest prompt plus reply a session can reach, in tokens (template tokens included), or {@link Long#MAX_VALUE}
     * when a size or the number of calls has no bound (then only the model's window bounds it).
     */
    public long maxContextTokens() {
        double calls = this.calls.quantile(1);
        double perCall = stepTokens.quantile(1) + maxTokens.quantile(1) + 16;
        double total = systemTokens + firstTokens.quantile(1) + (calls - 1) * perCall + maxTokens.quantile(1) + 64;
        return Double.isInfinite(total) || total > 1e12 ? Long.MAX_VALUE : (long) Math.ceil(total);
    }

    /**
     * The shape in the shorthand's terms, for the settings block of results.json: constants as they are, a range by its
     * minimum, a quantile table by its median.
     */
    public WorkloadSpec nominal() {
        double jitter = pause instanceof Distribution.Uniform u ? u.jitter() : 0;
        return new WorkloadSpec(systemTokens, (int) Math.max(1, Math.round(firstTokens.typical())),
                (int) Math.max(0, Math.round(calls.typical()) - 1), (int) Math.max(1, Math.round(stepTokens.typical())),
                (int) Math.max(1, Math.round(maxTokens.typical())), Duration.ofNanos(Math.round(pause.typical())), jitter, seed);
    }

    /** Every size and pause, for reports. */
    public String describe() {
        return String.format(Locale.ROOT, "system %d tokens, first message %s tokens, %s calls, %s new tokens per follow-up, "
                        + "max_tokens %s, pause %s, %s", systemTokens, firstTokens.describe(Sizes::tokens),
                calls.describe(Sizes::count), stepTokens.describe(Sizes::tokens), maxTokens.describe(Sizes::tokens),
                pause.describe(Sizes::nanos), compaction.describe());
    }

    /** How values read in reports. */
    static final class Sizes {
        private Sizes() {
        }

        static String tokens(double v) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }

        static String count(double v) {
            return String.format(Locale.ROOT, v == Math.rint(v) ? "%.0f" : "%.1f", v);
        }

        static String nanos(double v) {
            double s = v / 1e9;
            return s >= 120 ? String.format(Locale.ROOT, "%.1f min", s / 60) : String.format(Locale.ROOT, s < 10 ? "%.2g s" : "%.0f s", s);
        }
    }
}
