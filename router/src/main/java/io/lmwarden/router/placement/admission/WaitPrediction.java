package io.lmwarden.router.placement.admission;

/**
 * A queued newcomer's forecast wait: {@code rawNanos} from the newcomers ahead and their pace, {@code correctedNanos}
 * after the forecast's recent error; both -1 when nothing was known yet.
 */
record WaitPrediction(long rawNanos, long correctedNanos) {

    static final WaitPrediction UNKNOWN = new WaitPrediction(-1, -1);

    boolean known() {
        return rawNanos > 0;
    }

    /** Whether the corrected forecast is longer than {@code timeoutNanos}. */
    boolean passes(long timeoutNanos) {
        return known() && correctedNanos > timeoutNanos;
    }
}
