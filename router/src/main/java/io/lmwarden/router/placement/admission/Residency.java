package io.lmwarden.router.placement.admission;

/**
 * One session resident on a replica: its working set is counted against that replica's budget from
 * admission until it has had nothing in flight for the residency idle time, it moves, or it yields.
 * Mutable; only {@link ResidencyTable} changes it, under its lock.
 */
final class Residency {

    final String session;
    String replica;
    WorkingSet workingSet;
    int inFlight;
    long idleSinceNanos;
    final long residentSinceNanos;

    Residency(String session, String replica, WorkingSet workingSet, long nowNanos) {
        this.session = session;
        this.replica = replica;
        this.workingSet = workingSet;
        this.residentSinceNanos = nowNanos;
        this.idleSinceNanos = nowNanos;
    }

    boolean idle() {
        return inFlight == 0;
    }
}
