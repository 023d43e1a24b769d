package io.lmwarden.router.placement.admission;

/**
 * The rate at which newcomers leave the admission queue admitted: the last {@value #WINDOW} intervals between newcomer
 * admissions, and the open one since the last, each counted only while at least one newcomer waited (its exposure).
 * Counting only the time newcomers waited keeps an empty queue from reading as a slow one; counting the open interval
 * makes a queue that stalls read slower at once, not only at its next admission (it is a censored interval: the next
 * admission is at least that far off). The window starts at an admission, not when newcomers began to wait: the time
 * from an arbitrary moment to the next admission is length-biased (the inspection paradox), and on the reference
 * workload the first newcomers of a stage waited out a whole cycle of sessions in progress before the first of them was
 * admitted, which read as a rate several times too slow. Counting only newcomers' admissions leaves out the steps of
 * sessions in progress, which overtake newcomers: what they take from newcomers is already in this rate. Unknown until
 * {@value #MIN_ADMISSIONS} admissions were seen. Not thread-safe: {@link AdmissionController} guards it.
 */
final class NewcomerPace {

    /** Intervals the rate is measured over: few enough to follow the pool, enough for a spread near 25 %. */
    static final int WINDOW = 16;
    static final int MIN_ADMISSIONS = 3;

    /** The exposure when each of the last WINDOW + 1 admissions happened (a ring). */
    private final double[] exposureAt = new double[WINDOW + 1];
    private long admissions;
    private double exposureNanos;
    private long lastChangeNanos;
    private int waiting;

    /** How many newcomers wait from {@code now} on. */
    void waiting(int newcomers, long now) {
        accrue(now);
        waiting = newcomers;
    }

    /** A newcomer left the queue admitted (call before {@link #waiting} says it left). */
    void admitted(long now) {
        accrue(now);
        exposureAt[(int) (admissions % exposureAt.length)] = exposureNanos;
        admissions++;
    }

    /** Newcomer admissions per nanosecond of exposure, or NaN while unknown. */
    double ratePerNano(long now) {
        if (admissions < MIN_ADMISSIONS) {
            return Double.NaN;
        }
        double exposure = exposureNanos + (waiting > 0 ? Math.max(0, now - lastChangeNanos) : 0);
        long counted = Math.min(admissions - 1, WINDOW);
        double from = exposureAt[(int) ((admissions - 1 - counted) % exposureAt.length)];
        double over = exposure - from;
        // Admitted the instant they arrived (a stepped clock): no time to measure a rate over.
        return over > 0 ? counted / over : Double.NaN;
    }

    private void accrue(long now) {
        if (waiting > 0) {
            exposureNanos += Math.max(0, now - lastChangeNanos);
        }
        lastChangeNanos = now;
    }
}
