package io.lmwarden.sim.engine;

import java.util.Arrays;

/** A cumulative Prometheus-style histogram over fixed upper bounds (the +Inf bucket is implicit). */
public final class Histogram {
    /** vLLM's buckets for vllm:time_to_first_token_seconds. */
    public static final double[] TTFT_BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
        0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
    /** vLLM's request_latency_buckets (e2e, queue, prefill, decode time histograms). */
    public static final double[] REQUEST_LATENCY_BUCKETS = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0,
        20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

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
