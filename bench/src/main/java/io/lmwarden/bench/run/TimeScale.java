package io.lmwarden.bench.run;

import java.time.Duration;

/**
 * The compressed clock: with scale K, one wall-clock second is K seconds of workload time. Every time
 * the bench measures on the wall clock is multiplied by K before it is reported.
 */
public record TimeScale(double factor) {

    public TimeScale {
        if (!(factor > 0)) {
            throw new IllegalArgumentException("--time-scale must be > 0, got " + factor);
        }
    }

    public long wallNanos(Duration workload) {
        return (long) (workload.toNanos() / factor);
    }

    public long wallMillis(Duration workload) {
        return Math.max(1, Math.round(workload.toNanos() / factor / 1e6));
    }

    public double workloadSeconds(long wallNanos) {
        return wallNanos * factor / 1e9;
    }
}
