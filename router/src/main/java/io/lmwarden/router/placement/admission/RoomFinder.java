package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.filter.Candidates;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.prefix.HeldTokens;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Where a step may go: where the policy sends it (its session resident there from now on), or, within the KV
 * budget, where its working set fits — the policy's choice first, paused residents there giving way by cost; then
 * the least loaded replica with room (unless its home still holds its prefix); then, when a replica's compute would
 * otherwise idle, where paused residents give way. Not thread-safe: the controller's lock guards it.
 */
final class RoomFinder {

    private final Placer placer;
    private final Supplier<PlacementPolicy> policy;
    private final SessionHomes homes;
    /** What a replica holds of a prompt: the engine's KV events where they are live, else the router's text estimate. */
    private final HeldTokens held;
    private final ResidencyTable residencies;
    private final ReturnTimes returnTimes;
    private final Revocations revocations;

    RoomFinder(Placer placer, Supplier<PlacementPolicy> policy, SessionHomes homes, HeldTokens held,
               ResidencyTable residencies, ReturnTimes returnTimes, Revocations revocations) {
        this.placer = placer;
        this.policy = policy;
        this.homes = homes;
        this.held = held;
        this.residencies = residencies;
        this.returnTimes = returnTimes;
        this.revocations = revocations;
    }

    /** Where the policy sends the step, whatever the budget: the session is (or stays) resident there. */
    Placement placeAsPolicy(RequestFacts facts, String session, WorkingSet ws, Set<String> tried, boolean sameStep,
                            PoolSnapshot snap, long now) throws NoReplicaAvailableException {
        Placement p = placer.place(facts, snap, tried, now);
        reside(facts, session, p.replica().id(), ws, sameStep, now);
        revocations.relievePressure(p.replica(), session, now);
        return p;
    }

    /**
     * Where the session's step may go now within the KV budget, if anywhere, among the replicas not in {@code tried};
     * makes the session resident there.
     *
     * @param sameStep    the step is already counted (a retry): its residency moves rather than a new step starting
     * @param firstChoice told the policy's choice, which may have re-pinned the session even when the step must wait
     * @param heldFor     replicas requests ahead in the queue wait for: their room is not taken here; when this step
     *                    must wait too, the replica it waits for (the policy's choice) is added, held as
     *                    {@code inProgress}'s lane, and why it waits is told ({@link HeldRooms#missed})
     */
    Optional<Placement> placeWithinBudget(RequestFacts facts, String session, WorkingSet ws, Set<String> tried, boolean sameStep,
                                          PoolSnapshot snap, long now, FirstChoice firstChoice, HeldRooms heldFor, boolean inProgress)
            throws NoReplicaAvailableException {
        Placement chosen = placer.place(facts, snap, tried, now);
        firstChoice.offer(chosen);
        ReplicaView first = chosen.replica();
        boolean firstHeld = heldFor.isHeld(first.id());
        if (!firstHeld && residencies.fits(first, ws)) {
            reside(facts, session, first.id(), ws, sameStep, now);
            return Optional.of(chosen);
        }
        // Paused residents that cost more to hold than to recompute make room where the policy wants the step.
        int revoked = firstHeld ? 0 : revocations.makeRoom(first, ws, false, now);
        if (!firstHeld && residencies.fits(first, ws)) {
            reside(facts, session, first.id(), ws, sameStep, now);
            return Optional.of(revoked == 0 ? chosen : chosen.withDecision(chosen.decision(), chosen.reason() + "; " + revoked
                    + " paused resident(s) gave up their KV budget"));
        }
        // A session whose home still holds its prefix waits for room there rather than start cold elsewhere, unless a
        // replica would otherwise idle: compute left unused costs more than a prefix recomputed.
        boolean homeHoldsIt = chosen.decision() == Decision.STICKY
                && 2L * held.heldTokens(first, facts.shape()) >= facts.shape().estimatedTokens();
        List<ReplicaView> others = new ArrayList<>(Candidates.eligible(facts, snap, tried));
        others.removeIf(r -> r.id().equals(first.id()) || heldFor.isHeld(r.id()));
        // Backfill: requests behind it may take the room a session waiting for its warm home leaves elsewhere.
        boolean backfilled = homeHoldsIt && others.stream().anyMatch(r -> !computeIdle(r) && residencies.fits(r, ws));
        others.removeIf(r -> homeHoldsIt && !computeIdle(r));
        // Where the session could start afresh comes first (a LoRA adapter's session: where its adapter runs or fits),
        // then the rest by load: a step that moves to a replica that must swap its adapter in waits for a slot there.
        Set<ReplicaView> allowed = new HashSet<>(homes.allowedForNew(facts, others, snap, now));
        others.sort(Comparator.comparing((ReplicaView r) -> !allowed.contains(r)).thenComparing(LoadOrder.FOR_NEW_SESSION));
        for (ReplicaView r : others) {
            if (residencies.fits(r, ws)) {
                return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget"));
            }
        }
        for (ReplicaView r : others) {
            int n = revocations.makeRoom(r, ws, false, now);
            if (residencies.fits(r, ws)) {
                return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget; "
                        + n + " paused resident(s) of " + r.id() + " gave up theirs"));
            }
        }
        // Work-conserving: a replica with nothing running must not idle while this waits; its residents that have
        // paused for a while (half their usual pause) give way, never one about to return.
        List<ReplicaView> order = new ArrayList<>();
        if (!firstHeld) {
            order.add(first);
        }
        order.addAll(others);
        for (ReplicaView r : order) {
            if (computeIdle(r)) {
                int n = revocations.makeRoom(r, ws, true, now);
                if (residencies.fits(r, ws)) {
                    if (r == first) {
                        reside(facts, session, first.id(), ws, sameStep, now);
                        return Optional.of(chosen.withDecision(chosen.decision(), chosen.reason() + "; " + n
                                + " paused resident(s) gave up their KV budget"));
                    }
                    return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget; "
                            + n + " paused resident(s) of " + r.id() + " gave up theirs"));
                }
            }
        }
        heldFor.missed(firstHeld ? heldFor.holderOf(first.id()) : backfilled ? WaitCause.WARM_HOME
                : residencies.pausedOn(first.id()).isEmpty() ? WaitCause.RUNNING : WaitCause.PAUSED_RESIDENTS);
        heldFor.hold(first.id(), inProgress);
        return Optional.empty();
    }

    private void reside(RequestFacts facts, String session, String replica, WorkingSet ws, boolean sameStep, long now) {
        if (sameStep) {
            residencies.moved(session, replica, ws, now);
        } else {
            residencies.stepStarted(session, replica, ws, now);
            // The agent kind: how the client names its session (Claude Code's header, Codex's, …).
            returnTimes.stepStarted(session, facts.sessionKey().source().label(), now);
        }
    }

    /** The step goes elsewhere than the policy chose: a session the policy keeps on a home lives there from now on. */
    private Placement moveTo(RequestFacts facts, String session, WorkingSet ws, boolean sameStep, Placement chosen, ReplicaView target,
                             long now, String why) {
        if (policy.get().pinsSessions()) {
            homes.moved(facts, target.id(), now);
        }
        reside(facts, session, target.id(), ws, sameStep, now);
        String reason = (chosen.decision() == Decision.FALLBACK ? chosen.reason() + "; " : "")
                + "admission: " + chosen.replica().id() + " " + why + " → " + target.id();
        int expected = held.heldTokens(target, facts.shape());
        if (chosen.decision() == Decision.STICKY || chosen.decision() == Decision.SPILL) {
            return new Placement(target, Decision.SPILL, reason, expected).movedFrom(chosen.replica().id());
        }
        if (chosen.decision() == Decision.DRAIN) {
            // Still the drain's move, from the draining home, to where the budget has room.
            return new Placement(target, Decision.DRAIN, chosen.reason() + "; " + reason, expected).movedFrom(chosen.movedFrom());
        }
        return new Placement(target, chosen.decision(), reason, expected);
    }

    /** Nothing the router sent is running there, and no resident has a request on its way. */
    private boolean computeIdle(ReplicaView r) {
        return r.inFlight() == 0 && residencies.load(r.id()).inFlight() == 0;
    }
}
