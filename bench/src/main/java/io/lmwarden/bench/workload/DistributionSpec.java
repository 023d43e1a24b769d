package io.lmwarden.bench.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.common.Durations;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link Distribution} as a workload file writes it: a number (or duration) is a constant; {@code {mean, jitter}} is
 * uniform in mean × [1 − jitter, 1 + jitter]; {@code {min, max}} is uniform between them; keys {@code pNN} are quantiles
 * ({@code {p50, p90}} alone: the log-normal through them), clipped by optional {@code min} and {@code max}.
 */
final class DistributionSpec {

    /** What the values are. */
    enum Unit {
        /** Token counts and calls: numbers. */
        COUNT,
        /** Pauses: durations as the project writes them ({@code 10s}, {@code 2.5m}), held in nanoseconds. */
        DURATION
    }

    private static final Pattern QUANTILE = Pattern.compile("p(\\d{1,2}(?:\\.\\d+)?)");

    private DistributionSpec() {
    }

    static Distribution parse(JsonNode node, Unit unit, String where) {
        if (!node.isObject()) {
            return new Distribution.Constant(value(node, unit, where));
        }
        List<Distribution.Quantiles.Point> points = new ArrayList<>();
        Double min = null;
        Double max = null;
        Double mean = null;
        Double jitter = null;
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            String key = e.getKey();
            Matcher q = QUANTILE.matcher(key);
            switch (key) {
                case "min", "p0" -> min = value(e.getValue(), unit, where + "." + key);
                case "max", "p100" -> max = value(e.getValue(), unit, where + "." + key);
                case "mean" -> mean = value(e.getValue(), unit, where + ".mean");
                case "jitter" -> jitter = e.getValue().asDouble(Double.NaN);
                default -> {
                    if (!q.matches()) {
                        throw new IllegalArgumentException(where + ": unknown key '" + key + "'; write a number, {mean, jitter},"
                                + " {min, max} or quantiles such as {p10: …, p50: …, p90: …} with optional min and max");
                    }
                    points.add(new Distribution.Quantiles.Point(Double.parseDouble(q.group(1)) / 100,
                            value(e.getValue(), unit, where + "." + key)));
                }
            }
        }
        try {
            if (mean != null || jitter != null) {
                if (mean == null || !points.isEmpty() || min != null || max != null) {
                    throw new IllegalArgumentException("{mean, jitter} stands alone, with a mean");
                }
                return new Distribution.Uniform(mean, jitter == null ? 0 : jitter);
            }
            if (points.isEmpty()) {
                if (min == null || max == null) {
                    throw new IllegalArgumentException("give {min, max}, {mean, jitter} or quantiles (p50 and p90 at least)");
                }
                if (unit == Unit.COUNT && min == Math.rint(min) && max == Math.rint(max)) {
                    return new Distribution.IntRange(min.intValue(), max.intValue());
                }
                double m = (min + max) / 2;
                return new Distribution.Uniform(m, m == 0 ? 0 : (max - min) / (max + min));
            }
            points.sort(java.util.Comparator.comparingDouble(Distribution.Quantiles.Point::p));
            return new Distribution.Quantiles(points, min == null ? 0 : min, max == null ? Double.POSITIVE_INFINITY : max);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static double value(JsonNode node, Unit unit, String where) {
        if (unit == Unit.DURATION) {
            try {
                return Durations.parse(node.asText()).toNanos();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
        }
        if (!node.isNumber()) {
            throw new IllegalArgumentException(where + ": expected a number, got '" + node.asText() + "'");
        }
        return node.asDouble();
    }
}
