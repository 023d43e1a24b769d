package io.lmwarden.sim.engine;

import java.util.Arrays;

/** A cumulative Prometheus-style histogram over fixed upper bounds (the +Inf bucket is implicit). */
public final class Histogram {
    // Buckets as vllm/v1/metrics/buckets.py defines them (vllm-project/vllm 3168f587f0555dda23ee852316697cc12f314eab).
    /** PREFILL_LATENCY: vllm:time_to_first_token_seconds. */
    public static final double[] TTFT_BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
        0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
    /** ACCUMULATED_PHASE_LATENCY: e2e, queue, prefill and decode time of a request. */
    public static final double[] REQUEST_LATENCY_BUCKETS = {0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0,
        15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
    /** TOKEN_STEP_LATENCY: vllm:inter_token_latency_seconds. */
    public static final double[] TOKEN_STEP_LATENCY_BUCKETS = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4,
        0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
    /**
     * BATCH_SIZE: vllm:iteration_tokens_total. loggers.py asks {@code get_buckets(BucketType.BATCH_SIZE)} without
     * max_num_batched_tokens, so the 1-2-5 series runs to its default 16384 whatever the engine's budget.
     */
    public static final double[] ITERATION_TOKENS_BUCKETS = oneTwoFive(16384);

    /** vLLM's {@code build_1_2_5_buckets(max)}: 1, 2, 5, 10, 20, 50, … up to and including max. */
    public static double[] oneTwoFive(int max) {
        java.util.List<Double> out = new java.util.ArrayList<>();
        for (long decade = 1; decade <= max; decade *= 10) {
            for (int m : new int[] {1, 2, 5}) {
                if (m * decade <= max) {
                    out.add((double) (m * decade));
                }
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private final double[] bounds;
    private final long[] counts;
    private long count;
    private double sum;

    public Histogram(double[] bounds) {
        this.bounds = bounds.clone();
        this.counts = new long[bounds.length];
    }

    private Histogram(Histogram other) {
        bounds = other.bounds;
        counts = other.counts.clone();
        count = other.count;
        sum = other.sum;
    }

    void observe(double value) {
        int i = Arrays.binarySearch(bounds, value);
        int first = i >= 0 ? i : -i - 1;
        for (int b = first; b < bounds.length; b++) {
            counts[b]++;
        }
        count++;
        sum += value;
    }

    Histogram copy() {
        return new Histogram(this);
    }

    /** Takes {@code other}'s counts (same bounds). */
    void copyFrom(Histogram other) {
        if (other.bounds.length != bounds.length) {
            throw new IllegalArgumentException("histograms of different buckets");
        }
        System.arraycopy(other.counts, 0, counts, 0, counts.length);
        count = other.count;
        sum = other.sum;
    }

    public double[] bounds() {
        return bounds.clone();
    }

    /** Cumulative count of observations at or below {@code bounds()[i]}. */
    public long cumulative(int i) {
        return counts[i];
    }

    public long count() {
        return count;
    }

    public double sum() {
        return sum;
    }
}
