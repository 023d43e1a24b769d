package io.lmwarden.router.proxy;

import java.time.Duration;

/**
 * How far a request that has sent nothing to its client yet may be retried: on at most {@code attempts}
 * replicas in all, and no new attempt later than {@code window} after the first one (zero: no time limit).
 * Bounded both ways, so a request cannot bounce around a failing pool for ever. Both come from settings that
 * {@link io.lmwarden.router.config.UpstreamSettings} checks.
 */
public record RetryBudget(int attempts, Duration window) {

    /** Whether another attempt may start, after {@code tried} replicas, the first of them at {@code firstAttemptNanos}. */
    public boolean allowsAnother(int tried, long firstAttemptNanos, long nowNanos) {
        return tried < attempts && (window.isZero() || nowNanos - firstAttemptNanos < window.toNanos());
    }
}
