package io.lmwarden.router.placement.admission;

/**
 * A queued newcomer's forecast wait: {@code rawNanos} from the newcomers ahead and their pace, {@code correctedNanos}
 * after the forecast's recent error; both -1 when nothing was known yet. {@code measured}: the forecast's error was
 * measured on enough outcomes for the correction to apply ({@link ForecastError#MIN_OUTCOMES}).
 */
record WaitPrediction(long rawNanos, long correctedNanos, boolean measured) {

    static final WaitPrediction UNKNOWN = new WaitPrediction(-1, -1, false);

    boolean known() {
        return rawNanos > 0;
    }

    /**
     * Whether the newcomer is to be refused at once: the corrected forecast is longer than {@code timeoutNanos}. Never
     * on a forecast whose error is not measured yet: refusing costs the newcomer its place for good, waiting costs it at
     * most the timeout, and an unchecked forecast has run several times too long (the first forecasts of a stage are
     * made from its first few admissions).
     */
    boolean passes(long timeoutNanos) {
        return known() && measured && correctedNanos > timeoutNanos;
    }
}
