package io.lmwarden.router.placement.admission;

import io.lmwarden.router.pool.ReplicaView;

/**
 * Where residency lapses: by cost, never by a timer. Room for a step (paused residents that cost more to hold than to
 * recompute, in {@link Victims} order), pressure relieved with hysteresis ({@link Pressure}), residents beyond the
 * budget while it applies, and a long resident's slice at its pause while others wait. Not thread-safe: the
 * controller's lock guards it.
 */
final class Revocations {

    private final ResidencyTable residencies;
    private final Victims victims;
    private final EngagementGate gate;
    private final AdmissionTotals totals;

    Revocations(ResidencyTable residencies, Victims victims, EngagementGate gate, AdmissionTotals totals) {
        this.residencies = residencies;
        this.victims = victims;
        this.gate = gate;
        this.totals = totals;
    }

    /**
     * Revokes the replica's paused residents in victim order until the working set fits, and on down to the release
     * mark while any cost more to hold than to recompute ({@code workConserving}: the replica has nothing to run, so
     * residents paused half their usual pause go too). Returns how many were revoked.
     */
    int makeRoom(ReplicaView r, WorkingSet ws, boolean workConserving, long now) {
        residencies.handOverRunningElsewhere(r.id());
        int n = 0;
        long available = residencies.availableBlocks(r);
        Victims.Eligible eligible = workConserving ? Victims.Eligible.WORK_CONSERVING : Victims.Eligible.COSTLY;
        for (String victim : victims.order(residencies.pausedOn(r.id()), now, gate.breakEvenNanos(r), eligible)) {
            if (residencies.fits(r, ws) && Pressure.DEFAULT.released(residencies.usedBlocks(r.id()) + residencies.extraBlocks(r.id(), ws), available)) {
                break;
            }
            residencies.revoke(victim);
            n++;
        }
        totals.revokedUnderPressure.addAndGet(n);
        return n;
    }

    /**
     * Hysteresis: when the replica's residents hold more than the upper mark of its budget, paused residents that cost
     * more to hold than to recompute give up their residency, down to the lower mark. {@code keep}: never this one.
     */
    void relievePressure(ReplicaView r, String keep, long now) {
        residencies.handOverRunningElsewhere(r.id());
        long available = residencies.availableBlocks(r);
        if (!Pressure.DEFAULT.acts(residencies.usedBlocks(r.id()), available)) {
            return;
        }
        int n = 0;
        for (String victim : victims.order(residencies.pausedOn(r.id()), now, gate.breakEvenNanos(r), Victims.Eligible.COSTLY)) {
            if (Pressure.DEFAULT.released(residencies.usedBlocks(r.id()), available)) {
                break;
            }
            if (!victim.equals(keep)) {
                residencies.revoke(victim);
                n++;
            }
        }
        // While the pool thrashes the budget is the budget: residents admitted beyond it (before admission engaged)
        // give it back as they pause, the least likely to return first.
        if (gate.appliesAt(now) && residencies.usedBlocks(r.id()) > available) {
            for (String victim : victims.order(residencies.pausedOn(r.id()), now, gate.breakEvenNanos(r), Victims.Eligible.ALL)) {
                if (residencies.usedBlocks(r.id()) <= available) {
                    break;
                }
                if (!victim.equals(keep)) {
                    residencies.revoke(victim);
                    n++;
                }
            }
        }
        totals.revokedUnderPressure.addAndGet(n);
    }

    /**
     * Fairness: a session whose step just ended and left it idle yields its residency when it has been resident a
     * whole slice and others wait. Returns whether it yielded.
     */
    boolean yieldSlice(String session, boolean othersWait, long sliceNanos, long now) {
        if (othersWait && residencies.residentForNanos(session, now) >= sliceNanos) {
            residencies.revoke(session);
            totals.yieldedSlice.incrementAndGet();
            return true;
        }
        return false;
    }
}
