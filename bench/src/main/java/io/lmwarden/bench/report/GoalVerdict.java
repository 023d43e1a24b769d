package io.lmwarden.bench.report;

import io.lmwarden.bench.pool.VariantSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Issue 23's goal, per stage, from the medians: {@code default} against the best of the other policies (the ceiling is
 * the upper bound, not a competitor). {@code default} must be at least the best other − 3 % on output tokens/min and
 * sessions/h, at most the best other + 5 % on TTFB p50 and on the Little's-law session time, and reject no step of a
 * session in progress (rejections summed over repeats; rejected first steps are counted beside, not against it). When
 * fewer than {@link #MIN_COMPLETIONS} sessions end in a window of the rows compared (agents whose sessions last hours),
 * sessions/h and the Little's-law time are taken from the calls instead ({@code sessionsPerHourFromCalls}): the same
 * rate in a steady state, measured on hundreds of calls instead of a handful of completions.
 */
public final class GoalVerdict {

    /** Output tokens/min and sessions/h may fall this far below the best other. */
    public static final double THROUGHPUT_TOLERANCE = 0.03;
    /** TTFB p50 and the Little's-law session time may rise this far above the best other. */
    public static final double LATENCY_TOLERANCE = 0.05;
    /** Below this many completed sessions (median per window) in a compared row, session figures come from the calls. */
    public static final int MIN_COMPLETIONS = 20;

    /**
     * One figure of one stage.
     *
     * @param bestPolicy     the other policy with the best value
     * @param deltaPct       default against that best, percent (+ = higher)
     * @param limit          the value default had to reach (at least, or at most)
     * @param higherIsBetter throughput figures; latency figures are lower-is-better
     * @param censored       default's value is a lower bound (no session completed in its window)
     */
    public record Criterion(String figure, String bestPolicy, double best, double value, double deltaPct, double limit,
                            boolean higherIsBetter, boolean censored, boolean met) {
    }

    /**
     * One stage's verdict.
     *
     * @param rejectedInProgress default's rejected steps of sessions in progress (must be 0)
     * @param rejectedFirstSteps default's rejected first steps (newcomers told at once; not part of the goal)
     * @param ceilingRatio       default's output tokens/min ÷ the ceiling's, NaN without a ceiling
     */
    public record Cell(int sessions, List<Criterion> criteria, int rejectedInProgress, int rejectedFirstSteps, double ceilingRatio,
                       boolean met) {

        /** The figures that missed, for one line of text: "ttfb p50 by 6 %". */
        public List<String> misses() {
            List<String> out = new ArrayList<>();
            criteria.stream().filter(c -> !c.met()).forEach(c -> out.add(c.censored()
                    ? c.figure() + " unknown: default completed no session in its window (a lower bound)"
                    : c.figure() + String.format(java.util.Locale.ROOT, " by %.1f %% past its limit", 100 * (c.higherIsBetter()
                    ? (c.limit() - c.value()) / c.limit() : (c.value() - c.limit()) / c.limit()))));
            if (rejectedInProgress > 0) {
                out.add(rejectedInProgress + " steps of sessions in progress rejected");
            }
            return out;
        }
    }

    private GoalVerdict() {
    }

    /** Whether the run has what the goal compares: {@code default} and at least one other policy. */
    public static boolean applies(List<StageResult> medians) {
        List<String> policies = Medians.policies(medians);
        return policies.contains(VariantSpec.DEFAULT) && policies.stream().anyMatch(GoalVerdict::competitor);
    }

    /** Per stage, in the run's order; empty when the goal does not apply. */
    public static List<Cell> of(List<StageResult> medians) {
        List<Cell> cells = new ArrayList<>();
        if (!applies(medians)) {
            return cells;
        }
        for (int sessions : Medians.stages(medians)) {
            StageResult mine = Medians.find(medians, VariantSpec.DEFAULT, sessions);
            List<StageResult> others = medians.stream().filter(r -> r.sessions() == sessions && competitor(r.policy())).toList();
            if (mine == null || others.isEmpty()) {
                continue;
            }
            boolean fromCalls = mine.throughput().sessionsCompleted() < MIN_COMPLETIONS
                    || others.stream().anyMatch(o -> o.throughput().sessionsCompleted() < MIN_COMPLETIONS);
            List<Criterion> criteria = List.of(
                    criterion("output tok/min", mine, others, r -> r.throughput().outputTokensPerMin(), true, false),
                    fromCalls ? criterion("sessions/h (from calls)", mine, others, r -> r.throughput().sessionsPerHourFromCalls(), true, false)
                            : criterion("sessions/h", mine, others, r -> r.throughput().sessionsPerHour(), true, false),
                    criterion("TTFB p50", mine, others, r -> r.latency().ttfbP50(), false, false),
                    fromCalls ? criterion("Little's-law session time (from calls)", mine, others,
                            r -> r.sessionTimes().littlesLawFromCalls(), false, false)
                            : criterion("Little's-law session time", mine, others, r -> r.sessionTimes().littlesLaw(), false,
                            mine.sessionTimes().littlesLawAtLeast()));
            int rejectedInProgress = mine.queue().rejectedInProgress();
            boolean met = criteria.stream().allMatch(Criterion::met) && rejectedInProgress == 0;
            cells.add(new Cell(sessions, criteria, rejectedInProgress, mine.queue().rejectedFirstSteps(),
                    CeilingRatio.outputTokens(mine, medians), met));
        }
        return cells;
    }

    private static boolean competitor(String policy) {
        return !policy.equals(VariantSpec.DEFAULT) && !policy.equals(VariantSpec.CEILING);
    }

    private static Criterion criterion(String figure, StageResult mine, List<StageResult> others, ToDoubleFunction<StageResult> f,
                                       boolean higherIsBetter, boolean censored) {
        StageResult best = null;
        for (StageResult o : others) {
            double v = f.applyAsDouble(o);
            if (!Double.isNaN(v) && (best == null || (higherIsBetter ? v > f.applyAsDouble(best) : v < f.applyAsDouble(best)))) {
                best = o;
            }
        }
        double value = f.applyAsDouble(mine);
        if (best == null) {
            return new Criterion(figure, "–", Double.NaN, value, Double.NaN, Double.NaN, higherIsBetter, censored, true);
        }
        double bestValue = f.applyAsDouble(best);
        double limit = higherIsBetter ? bestValue * (1 - THROUGHPUT_TOLERANCE) : bestValue * (1 + LATENCY_TOLERANCE);
        boolean met = !Double.isNaN(value) && !censored && (higherIsBetter ? value >= limit : value <= limit);
        double delta = bestValue == 0 ? (value == 0 ? 0 : Double.POSITIVE_INFINITY) : 100 * (value - bestValue) / bestValue;
        return new Criterion(figure, best.policy(), bestValue, value, delta, limit, higherIsBetter, censored, met);
    }
}
