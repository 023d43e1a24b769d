package io.lmwarden.router.placement.admission;

/**
 * The rate at which newcomers leave the admission queue admitted: newcomer admissions divided by the time during which
 * at least one newcomer waited (its exposure), over the last {@value #WINDOW} admissions and the time since the last
 * one. Counting only the time newcomers waited keeps an empty queue from reading as a slow one; counting the time since
 * the last admission makes a queue that stalls read slower at once, not only at its next admission; counting only
 * newcomers' admissions leaves out the steps of sessions in progress, which overtake newcomers: what they take from
 * newcomers is already in this rate. Unknown until {@value #MIN_ADMISSIONS} admissions were seen. Not thread-safe:
 * {@link AdmissionController} guards it.
 */
final class NewcomerPace {

    /** Admissions the rate is measured over: few enough to follow the pool, enough for a spread near 25 %. */
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
        long counted = Math.min(admissions, WINDOW);
        double from = admissions > WINDOW ? exposureAt[(int) ((admissions - WINDOW - 1) % exposureAt.length)] : 0;
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
