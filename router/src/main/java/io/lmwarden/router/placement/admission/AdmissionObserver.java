package io.lmwarden.router.placement.admission;

/** Told what admission did, for the meters. */
public interface AdmissionObserver {

    /** A request left the queue admitted after waiting this long (wall clock). */
    void admittedAfterWait(long waitedNanos);

    /** A request was turned away: {@code queue_full}, {@code queue_timeout}; or left: {@code client_gone}. */
    void rejected(String reason);

    /**
     * A queued newcomer with a forecast wait left the queue: admitted after {@code realisedNanos}, or timed out
     * ({@code timedOut}: it would have waited at least that long). {@code predictedNanos}: the forecast its admission
     * was decided on (corrected by the forecast's recent error). Wall clock.
     */
    default void forecastSettled(long predictedNanos, long realisedNanos, boolean timedOut) {
    }

    /**
     * A step that left the queue (admitted, turned away, or its client left) waited {@code nanos} of its wait behind
     * {@code cause} ({@link WaitCause#label}); {@code inProgress}: a step of a session in progress, else a newcomer.
     * Wall clock; told once per cause it waited behind.
     */
    default void waitedBehind(String cause, boolean inProgress, long nanos) {
    }

    AdmissionObserver NONE = new AdmissionObserver() {
        @Override
        public void admittedAfterWait(long waitedNanos) {
        }

        @Override
        public void rejected(String reason) {
        }
    };
}
