package io.lmwarden.router.proxy;

import java.time.Duration;

/**
 * How far a request that has sent nothing to its client yet may be retried: on at most {@code attempts}
 * replicas in all, and no new attempt later than {@code window} after the first one (zero: no time limit).
 * Bounded both ways, so a request cannot bounce around a failing pool for ever.
 */
public record RetryBudget(int attempts, Duration window) {

    public RetryBudget {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
        }
        if (window.isNegative()) {
            throw new IllegalArgumentException("window must be >= 0, got " + window);
        }
    }

    /** Whether another attempt may start, after {@code tried} replicas, the first of them at {@code firstAttemptNanos}. */
    public boolean allowsAnother(int tried, long firstAttemptNanos, long nowNanos) {
        return tried < attempts && (window.isZero() || nowNanos - firstAttemptNanos < window.toNanos());
    }
}
