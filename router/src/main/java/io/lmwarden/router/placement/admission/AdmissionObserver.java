package io.lmwarden.router.placement.admission;

/** Told what admission did, for the meters. */
public interface AdmissionObserver {

    /** A request left the queue admitted after waiting this long (wall clock). */
    void admittedAfterWait(long waitedNanos);

    /** A request was turned away: {@code queue_full}, {@code queue_timeout}; or left: {@code client_gone}. */
    void rejected(String reason);

    AdmissionObserver NONE = new AdmissionObserver() {
        @Override
        public void admittedAfterWait(long waitedNanos) {
        }

        @Override
        public void rejected(String reason) {
        }
    };
}
