package io.lmwarden.bench.trace;

import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code lmw-bench replay}: which trace and how it is played.
 *
 * @param file      the JSONL trace
 * @param blockSize tokens per hash id (Mooncake's and AIPerf's default: 512)
 * @param speed     trace milliseconds per workload millisecond: 2 plays the trace twice as fast (timestamps and delays
 *                  halved), 0.5 at half speed
 * @param duration  how much of the trace to play, workload time from its start (sessions that begin later are left
 *                  out), or null for all of it
 */
public record TraceReplay(Path file, int blockSize, double speed, Duration duration) {

    public TraceReplay {
        if (blockSize < 1) {
            throw new IllegalArgumentException("--block-size must be >= 1, got " + blockSize);
        }
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("--speed must be > 0, got " + speed);
        }
        if (duration != null && (duration.isNegative() || duration.isZero())) {
            throw new IllegalArgumentException("--duration must be > 0");
        }
    }

    /** A trace time in workload nanoseconds. */
    public long workloadNanos(double traceMs) {
        return (long) (traceMs * 1e6 / speed);
    }
}
