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
 * <p>
 * Several router pods (issue 33): {@code default*K} (K clustered routers, steps spread over them) is judged like
 * {@code default}, in a cell of its own, and also against {@code default} on one router: at least its − 3 % on output
 * tokens/min and sessions/h, prefix hits at least its − {@link #HITS_TOLERANCE_POINTS} points. Each cell carries the
 * variant's router spread (steps per router, sessions split, refused connections).
 */
public final class GoalVerdict {

    /** Output tokens/min and sessions/h may fall this far below the best other. */
    public static final double THROUGHPUT_TOLERANCE = 0.03;
    /** TTFB p50 and the Little's-law session time may rise this far above the best other. */
    public static final double LATENCY_TOLERANCE = 0.05;
    /** Below this many completed sessions (median per window) in a compared row, session figures come from the calls. */
    public static final int MIN_COMPLETIONS = 20;
    /** Prefix hits of several routers may fall this many percentage points below one router's. */
    public static final double HITS_TOLERANCE_POINTS = 2;
    /** {@code default}, or {@code default*K}: the router's default configuration behind K clustered routers. */
    private static final java.util.regex.Pattern DEFAULT_VARIANT = java.util.regex.Pattern.compile(
            java.util.regex.Pattern.quote(VariantSpec.DEFAULT) + "(\\*\\d+)?");

    /**
     * One figure of one stage.
     *
     * @param bestPolicy     the other policy with the best value
     * @param deltaPct       default against that best, percent (+ = higher)
     * @param limit          the value default had to reach (at least, or at most)
     * @param higherIsBetter throughput figures; latency figures are lower-is-better
     * @param censored       default's value is a lower bound (no session completed in its window)
     * @param points         a percentage figure compared by difference: {@code deltaPct} is then in percentage points
     */
    public record Criterion(String figure, String bestPolicy, double best, double value, double deltaPct, double limit,
                            boolean higherIsBetter, boolean censored, boolean met, boolean points) {

        Criterion(String figure, String bestPolicy, double best, double value, double deltaPct, double limit,
                  boolean higherIsBetter, boolean censored, boolean met) {
            this(figure, bestPolicy, best, value, deltaPct, limit, higherIsBetter, censored, met, false);
        }

        /** " (+3 %)", " (-1.5 points)", or "" when unknown. */
        public String describeDelta() {
            if (Double.isNaN(deltaPct)) {
                return "";
            }
            return points ? String.format(java.util.Locale.ROOT, " (%+.1f points)", deltaPct)
                    : String.format(java.util.Locale.ROOT, " (%+.0f %%)", deltaPct);
        }
    }

    /**
     * One stage's verdict for one variant of the default.
     *
     * @param variant            {@code default}, or {@code default*K}
     * @param criteria           against the best other policy (empty when the run has none)
     * @param rejectedInProgress the variant's rejected steps of sessions in progress (must be 0)
     * @param rejectedFirstSteps its rejected first steps (newcomers told at once; not part of the goal)
     * @param ceilingRatio       its output tokens/min ÷ the ceiling's, NaN without a ceiling
     * @param againstOneRouter   for several routers: against {@code default} on one router (empty otherwise)
     * @param routers            how its steps spread over its routers (totals over repeats)
     */
    public record Cell(String variant, int sessions, List<Criterion> criteria, int rejectedInProgress, int rejectedFirstSteps,
                       double ceilingRatio, List<Criterion> againstOneRouter, RouterSpread routers, boolean met) {

        public Cell {
            criteria = List.copyOf(criteria);
            againstOneRouter = List.copyOf(againstOneRouter);
        }

        /** The figures that missed, for one line of text: "ttfb p50 by 6 %". */
        public List<String> misses() {
            List<String> out = new ArrayList<>();
            criteria.stream().filter(c -> !c.met()).forEach(c -> out.add(miss(c)));
            againstOneRouter.stream().filter(c -> !c.met()).forEach(c -> out.add("against one router: " + miss(c)));
            if (rejectedInProgress > 0) {
                out.add(rejectedInProgress + " steps of sessions in progress rejected");
            }
            return out;
        }

        private static String miss(Criterion c) {
            if (c.censored()) {
                return c.figure() + " unknown: default completed no session in its window (a lower bound)";
            }
            if (c.points()) {
                return c.figure() + String.format(java.util.Locale.ROOT, " by %.1f points past its limit", Math.abs(c.limit() - c.value()));
            }
            return c.figure() + String.format(java.util.Locale.ROOT, " by %.1f %% past its limit", 100 * (c.higherIsBetter()
                    ? (c.limit() - c.value()) / c.limit() : (c.value() - c.limit()) / c.limit()));
        }
    }

    private GoalVerdict() {
    }

    /** {@code default} or {@code default*K}: a variant the goal judges (rather than one it compares with). */
    public static boolean defaultVariant(String policy) {
        return DEFAULT_VARIANT.matcher(policy).matches();
    }

    /**
     * Whether the run has what the goal compares: a variant of the default and at least one other policy, or the default
     * on one router and on several.
     */
    public static boolean applies(List<StageResult> medians) {
        List<String> policies = Medians.policies(medians);
        if (policies.stream().noneMatch(GoalVerdict::defaultVariant)) {
            return false;
        }
        return policies.stream().anyMatch(GoalVerdict::competitor)
                || Medians.stages(medians).stream().anyMatch(n -> oneRouter(medians, n) != null
                && medians.stream().anyMatch(r -> r.sessions() == n && defaultVariant(r.policy()) && r.routerSpread().routers() > 1));
    }

    /** Per stage, in the run's order, one cell per variant of the default; empty when the goal does not apply. */
    public static List<Cell> of(List<StageResult> medians) {
        List<Cell> cells = new ArrayList<>();
        if (!applies(medians)) {
            return cells;
        }
        List<String> variants = Medians.policies(medians).stream().filter(GoalVerdict::defaultVariant).toList();
        for (int sessions : Medians.stages(medians)) {
            List<StageResult> others = medians.stream().filter(r -> r.sessions() == sessions && competitor(r.policy())).toList();
            StageResult reference = oneRouter(medians, sessions);
            for (String variant : variants) {
                StageResult mine = Medians.find(medians, variant, sessions);
                if (mine == null) {
                    continue;
                }
                boolean several = mine.routerSpread().routers() > 1 && reference != null;
                if (others.isEmpty() && !several) {
                    continue;
                }
                List<Criterion> criteria = others.isEmpty() ? List.of() : againstOthers(mine, others);
                List<Criterion> oneRouter = several ? againstOneRouter(mine, reference) : List.of();
                int rejectedInProgress = mine.queue().rejectedInProgress();
                boolean met = criteria.stream().allMatch(Criterion::met) && oneRouter.stream().allMatch(Criterion::met)
                        && rejectedInProgress == 0;
                cells.add(new Cell(variant, sessions, criteria, rejectedInProgress, mine.queue().rejectedFirstSteps(),
                        CeilingRatio.outputTokens(mine, medians), oneRouter, mine.routerSpread(), met));
            }
        }
        return cells;
    }

    /** Issue 23's four figures against the best other of each. */
    private static List<Criterion> againstOthers(StageResult mine, List<StageResult> others) {
        boolean fromCalls = mine.throughput().sessionsCompleted() < MIN_COMPLETIONS
                || others.stream().anyMatch(o -> o.throughput().sessionsCompleted() < MIN_COMPLETIONS);
        return List.of(
                criterion("output tok/min", mine, others, r -> r.throughput().outputTokensPerMin(), true, false),
                fromCalls ? criterion("sessions/h (from calls)", mine, others, r -> r.throughput().sessionsPerHourFromCalls(), true, false)
                        : criterion("sessions/h", mine, others, r -> r.throughput().sessionsPerHour(), true, false),
                criterion("TTFB p50", mine, others, r -> r.latency().ttfbP50(), false, false),
                fromCalls ? criterion("Little's-law session time (from calls)", mine, others,
                        r -> r.sessionTimes().littlesLawFromCalls(), false, false)
                        : criterion("Little's-law session time", mine, others, r -> r.sessionTimes().littlesLaw(), false,
                        mine.sessionTimes().littlesLawAtLeast()));
    }

    /** Issue 33's figures: several routers against the default on one, throughput within 3 %, hits within 2 points. */
    private static List<Criterion> againstOneRouter(StageResult mine, StageResult one) {
        boolean fromCalls = mine.throughput().sessionsCompleted() < MIN_COMPLETIONS || one.throughput().sessionsCompleted() < MIN_COMPLETIONS;
        List<StageResult> reference = List.of(one);
        double hits = mine.cache().prefixHitPct();
        double oneHits = one.cache().prefixHitPct();
        double hitsLimit = oneHits - HITS_TOLERANCE_POINTS;
        return List.of(
                criterion("output tok/min", mine, reference, r -> r.throughput().outputTokensPerMin(), true, false),
                fromCalls ? criterion("sessions/h (from calls)", mine, reference, r -> r.throughput().sessionsPerHourFromCalls(), true, false)
                        : criterion("sessions/h", mine, reference, r -> r.throughput().sessionsPerHour(), true, false),
                new Criterion("prefix hits %", one.policy(), oneHits, hits, hits - oneHits, hitsLimit, true, false,
                        Double.isNaN(oneHits) || !Double.isNaN(hits) && hits >= hitsLimit, true)); // no counters: nothing to miss
    }

    /** The stage's default on one router, or null. */
    private static StageResult oneRouter(List<StageResult> medians, int sessions) {
        return medians.stream().filter(r -> r.sessions() == sessions && defaultVariant(r.policy()) && r.routerSpread().routers() <= 1)
                .findFirst().orElse(null);
    }

    private static boolean competitor(String policy) {
        return !defaultVariant(policy) && !policy.equals(VariantSpec.CEILING);
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
