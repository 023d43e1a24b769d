package io.lmwarden.bench.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.DoubleFunction;

/**
 * How one size or pause of a session class varies: per session (its steps) or per step (pauses, new tokens, output
 * lengths). Every draw takes a random generator seeded from the run's seed and the value's label, so that every
 * variant sees the same sessions.
 */
public sealed interface Distribution permits Distribution.Constant, Distribution.Uniform, Distribution.IntRange,
        Distribution.Quantiles {

    /** One draw. */
    double sample(SplittableRandom random);

    /** The value at cumulative probability {@code p} (0..1). */
    double quantile(double p);

    /** The mean, integrated over the quantile function. */
    default double mean() {
        int n = 20_000;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += quantile((i + 0.5) / n);
        }
        return sum / n;
    }

    /** One value that stands for the distribution in a one-line summary: a range's minimum, a table's median, else the mean. */
    default double typical() {
        return quantile(0.5);
    }

    /** True when every draw gives the same value (no random draw is needed). */
    default boolean isConstant() {
        return false;
    }

    /** One phrase for reports, values written by {@code unit}. */
    String describe(DoubleFunction<String> unit);

    /** Always {@code value}. */
    record Constant(double value) implements Distribution {
        public Constant {
            requireNonNegative(value);
        }

        @Override
        public double sample(SplittableRandom random) {
            return value;
        }

        @Override
        public double quantile(double p) {
            return value;
        }

        @Override
        public boolean isConstant() {
            return true;
        }

        @Override
        public String describe(DoubleFunction<String> unit) {
            return unit.apply(value);
        }
    }

    /** Uniform in mean × [1 − jitter, 1 + jitter]: the bench's original think time. */
    record Uniform(double mean, double jitter) implements Distribution {
        public Uniform {
            requireNonNegative(mean);
            if (jitter < 0 || jitter > 1) {
                throw new IllegalArgumentException("jitter must be within 0..1, got " + jitter);
            }
        }

        @Override
        public double sample(SplittableRandom random) {
            return quantile(random.nextDouble());
        }

        @Override
        public double quantile(double p) {
            return mean * (1 - jitter + 2 * jitter * p);
        }

        @Override
        public double mean() {
            return mean;
        }

        @Override
        public double typical() {
            return mean;
        }

        @Override
        public boolean isConstant() {
            return jitter == 0 || mean == 0;
        }

        @Override
        public String describe(DoubleFunction<String> unit) {
            return jitter == 0 ? unit.apply(mean) : unit.apply(mean) + " ±" + fmt(jitter * 100) + "%";
        }
    }

    /** A whole number uniform in min..max: steps per session as {@code {min: 3, max: 8}}. */
    record IntRange(int min, int max) implements Distribution {
        public IntRange {
            if (min < 0 || max < min) {
                throw new IllegalArgumentException("a range needs 0 <= min <= max, got " + min + ".." + max);
            }
        }

        @Override
        public double sample(SplittableRandom random) {
            return max == min ? min : min + random.nextInt(max - min + 1);
        }

        @Override
        public double quantile(double p) {
            return Math.min(max, min + Math.floor(p * (max - min + 1)));
        }

        @Override
        public double mean() {
            return (min + max) / 2.0;
        }

        @Override
        public double typical() {
            return min;
        }

        @Override
        public boolean isConstant() {
            return min == max;
        }

        @Override
        public String describe(DoubleFunction<String> unit) {
            return min == max ? unit.apply(min) : unit.apply(min) + "–" + unit.apply(max);
        }
    }

    /**
     * Given quantiles, log-normal between and beyond them: the logarithm of the value is linear in the standard normal
     * score of p from one given quantile to the next, and the outermost pieces go on past the first and last. With two
     * quantiles this is exactly the log-normal through them ({@code {p50: 10s, p90: 162s}}); with more it follows a
     * published table ({@code {p10: 4s, p50: 10s, p90: 162s, p95: 449s}}) and keeps its heavy tail. {@code min} and
     * {@code max} clip the draws.
     *
     * @param points quantiles, p strictly increasing within (0, 1), values positive and not decreasing
     */
    record Quantiles(List<Point> points, double min, double max) implements Distribution {

        /** The value at cumulative probability p. */
        public record Point(double p, double value) {
        }

        public Quantiles {
            points = List.copyOf(points);
            if (points.size() < 2) {
                throw new IllegalArgumentException("give at least two quantiles (p50 and p90 make a log-normal)");
            }
            for (int i = 0; i < points.size(); i++) {
                Point pt = points.get(i);
                if (!(pt.p() > 0 && pt.p() < 1)) {
                    throw new IllegalArgumentException("quantiles are p1..p99 (write p0 and p100 as min and max), got p"
                            + fmt(pt.p() * 100));
                }
                if (!(pt.value() > 0)) {
                    throw new IllegalArgumentException("quantile values must be > 0, got " + pt.value() + " at p" + fmt(pt.p() * 100));
                }
                if (i > 0 && (pt.p() <= points.get(i - 1).p() || pt.value() < points.get(i - 1).value())) {
                    throw new IllegalArgumentException("quantiles must grow with p: p" + fmt(points.get(i - 1).p() * 100) + " "
                            + points.get(i - 1).value() + ", p" + fmt(pt.p() * 100) + " " + pt.value());
                }
            }
            if (min < 0 || max < min) {
                throw new IllegalArgumentException("min must be >= 0 and <= max, got " + min + " and " + max);
            }
        }

        /** The log-normal through p50 and p90. */
        public static Quantiles logNormal(double p50, double p90) {
            return new Quantiles(List.of(new Point(0.5, p50), new Point(0.9, p90)), 0, Double.POSITIVE_INFINITY);
        }

        @Override
        public double sample(SplittableRandom random) {
            return quantile(random.nextDouble());
        }

        @Override
        public double quantile(double p) {
            double z = Probit.of(Math.min(Math.max(p, 1e-12), 1 - 1e-12));
            int i = 0;
            while (i < points.size() - 2 && z > Probit.of(points.get(i + 1).p())) {
                i++;
            }
            Point a = points.get(i);
            Point b = points.get(i + 1);
            double za = Probit.of(a.p());
            double zb = Probit.of(b.p());
            double log = Math.log(a.value()) + (Math.log(b.value()) - Math.log(a.value())) * (z - za) / (zb - za);
            return Math.min(max, Math.max(min, Math.exp(log)));
        }

        @Override
        public String describe(DoubleFunction<String> unit) {
            List<String> parts = new ArrayList<>();
            points.forEach(pt -> parts.add("p" + fmt(pt.p() * 100) + " " + unit.apply(pt.value())));
            if (min > 0) {
                parts.add("min " + unit.apply(min));
            }
            if (max < Double.POSITIVE_INFINITY) {
                parts.add("max " + unit.apply(max));
            }
            return (points.size() == 2 ? "log-normal " : "quantiles ") + String.join(", ", parts) + " (mean " + unit.apply(mean()) + ")";
        }
    }

    private static void requireNonNegative(double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("sizes and pauses must be >= 0, got " + v);
        }
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.3g", v);
    }
}
