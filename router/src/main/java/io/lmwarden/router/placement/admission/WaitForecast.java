package io.lmwarden.router.placement.admission;

/**
 * How long a newcomer would wait in the admission queue: the queue ahead of it times the recent interval between
 * admissions from the queue (an exponentially weighted mean; each interval counted from the later of the previous
 * admission and the admitted request's arrival, so that an empty queue does not count as a slow one). Unknown until
 * a few admissions were seen. Not thread-safe: {@link AdmissionController} guards it.
 */
final class WaitForecast {

    private static final double ALPHA = 0.2;
    private static final int MIN_ADMISSIONS = 3;

    private double intervalNanos;
    private long lastAdmitNanos = Long.MIN_VALUE;
    private int admissions;

    void admitted(long enqueuedAtNanos, long nowNanos) {
        long from = Math.max(enqueuedAtNanos, lastAdmitNanos);
        double d = Math.max(0, nowNanos - from);
        intervalNanos = admissions == 0 ? d : intervalNanos + ALPHA * (d - intervalNanos);
        admissions++;
        lastAdmitNanos = nowNanos;
    }

    /** The predicted wait of a request with {@code ahead} requests before it, or -1 when not known yet. */
    long predictedNanos(int ahead) {
        if (admissions < MIN_ADMISSIONS) {
            return -1;
        }
        return (long) ((ahead + 1) * intervalNanos);
    }
}
