package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * How far the wait forecast was off for the last {@value #WINDOW} queued newcomers with an outcome, and the correction
 * that follows: the median of realised / predicted wait (the forecast before correction), by which the next forecast is
 * multiplied. A ratio, in logs an offset: the forecast's error is a factor (a burst of steps ending together, the
 * order of newcomers and sessions in progress), not a number of seconds. The median, not the mean: a timed-out
 * newcomer's wait is only known to be at least the timeout, and the median of a censored sample is estimated
 * ({@link KaplanMeier}) while its mean is not. When more than half of the window timed out above every admitted one
 * the median is unknown; the largest ratio seen is then the correction: a lower bound, erring toward admitting.
 * Before {@value #MIN_OUTCOMES} outcomes the forecast stands uncorrected and refuses no one. Not thread-safe:
 * {@link AdmissionController} guards it.
 */
final class ForecastError {

    static final int WINDOW = 64;
    static final int MIN_OUTCOMES = 8;
    /** The correction stays within a factor of this: beyond it the forecast itself, not its scale, is what is wrong. */
    static final double MAX_FACTOR = 8;

    /**
     * One queued newcomer's forecast and what happened: {@code rawNanos} before correction, {@code usedNanos} the one
     * the decision used, {@code realisedNanos} its wait ({@code censored}: it timed out, so at least this).
     */
    record Outcome(long rawNanos, long usedNanos, long realisedNanos, boolean censored) {

        double rawRatio() {
            return (double) realisedNanos / rawNanos;
        }

        double usedRatio() {
            return (double) realisedNanos / usedNanos;
        }
    }

    /** Quantiles over the window: of realised / predicted as used, and of both waits (NaN where unknown). */
    record Figures(int outcomes, int censored, double ratioMedian, double ratioP90, double predictedMedianNanos, double realisedMedianNanos) {
    }

    private final Outcome[] recent = new Outcome[WINDOW];
    private int count;
    private long total;
    private double correction = 1;

    void add(Outcome o) {
        recent[(int) (total % WINDOW)] = o;
        total++;
        count = (int) Math.min(total, WINDOW);
        correction = estimate();
    }

    /** The factor the forecast is multiplied by now. */
    double correction() {
        return correction;
    }

    /** Whether there are enough outcomes for the correction to apply (and for a forecast to refuse anyone). */
    boolean measured() {
        return count >= MIN_OUTCOMES;
    }

    Figures figures() {
        List<Outcome> window = window();
        int censored = (int) window.stream().filter(Outcome::censored).count();
        return new Figures(window.size(), censored, quantile(window, Outcome::usedRatio, 0.5), quantile(window, Outcome::usedRatio, 0.9),
                KaplanMeier.quantile(window.stream().map(o -> new KaplanMeier.Point(o.usedNanos(), false)).toList(), 0.5),
                quantile(window, Outcome::realisedNanos, 0.5));
    }

    private double estimate() {
        if (count < MIN_OUTCOMES) {
            return 1;
        }
        List<Outcome> window = window();
        double median = quantile(window, Outcome::rawRatio, 0.5);
        if (Double.isNaN(median)) {
            median = window.stream().mapToDouble(Outcome::rawRatio).max().orElse(1);
        }
        return Math.max(1 / MAX_FACTOR, Math.min(MAX_FACTOR, median));
    }

    private static double quantile(List<Outcome> window, ToDoubleFunction<Outcome> value, double q) {
        List<KaplanMeier.Point> points = new ArrayList<>(window.size());
        for (Outcome o : window) {
            points.add(new KaplanMeier.Point(value.applyAsDouble(o), o.censored()));
        }
        return KaplanMeier.quantile(points, q);
    }

    private List<Outcome> window() {
        List<Outcome> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(recent[i]);
        }
        return out;
    }
}
