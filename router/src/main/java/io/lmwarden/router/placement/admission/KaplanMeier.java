package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Quantiles of a right-censored sample by the Kaplan–Meier estimate of its distribution. A newcomer that timed out
 * waited at least the queue timeout, not exactly it: counting that bound as its wait would pull every quantile down
 * (and the forecast would promise shorter waits the more newcomers time out); dropping it would do the same. Here a
 * censored value leaves the risk set without being an event, which is the estimate that uses exactly what is known.
 */
final class KaplanMeier {

    /** One observation: {@code censored} when the true value is only known to be at least {@code value}. */
    record Point(double value, boolean censored) {
    }

    private static final Comparator<Point> ORDER = Comparator.comparingDouble(Point::value)
            // At a tie a censored value was still at risk at that value (the usual convention).
            .thenComparing(Point::censored);

    private KaplanMeier() {
    }

    /**
     * The smallest value at which the estimated share of the sample at or below it reaches {@code q} (0 &lt; q &lt; 1),
     * or NaN when it never does: too much of the sample is censored above every event to say.
     */
    static double quantile(List<Point> sample, double q) {
        List<Point> sorted = new ArrayList<>(sample);
        sorted.sort(ORDER);
        double survival = 1;
        int atRisk = sorted.size();
        int i = 0;
        while (i < sorted.size()) {
            double t = sorted.get(i).value();
            int events = 0;
            int censored = 0;
            while (i < sorted.size() && sorted.get(i).value() == t) {
                if (sorted.get(i).censored()) {
                    censored++;
                } else {
                    events++;
                }
                i++;
            }
            if (events > 0) {
                survival *= 1 - (double) events / atRisk;
                // The tolerance keeps an exact half (two of four) the median, not the next value.
                if (survival <= 1 - q + 1e-9) {
                    return t;
                }
            }
            atRisk -= events + censored;
        }
        return Double.NaN;
    }
}
