package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;

/**
 * The decision a step is announced with. Its first placement, given before or while it waits, may already have
 * re-pinned the session (its home drains, it spilled, it is new), so when the step is admitted there later,
 * placement sees the new home and says {@code STICKY}: the step is announced with its first decision instead.
 * Not thread-safe: one attempt's, under the controller's lock.
 */
final class FirstChoice {
    private Placement value;

    /** The first placement offered is kept; later ones are not. */
    void offer(Placement p) {
        if (value == null) {
            value = p;
        }
    }

    /** The placement the step is admitted with, announced as its first one made it. */
    Placement announce(Placement admitted) {
        return asFirstAnnounced(admitted, value);
    }

    /**
     * A queued step admitted where its first placement re-pinned the session keeps that placement's decision (DRAIN,
     * SPILL, NEW …) and the home it left: otherwise a move made before the wait would be announced as STICKY. A step
     * whose home was draining is a DRAIN move wherever it is admitted.
     */
    static Placement asFirstAnnounced(Placement now, Placement first) {
        if (first != null && first.decision() == Decision.DRAIN && now.decision() != Decision.DRAIN) {
            // The step left a draining home, wherever the budget finally let it in: that is the move to announce.
            Placement p = now.withDecision(Decision.DRAIN, first.reason() + "; admitted on " + now.replica().id() + ": " + now.reason());
            return first.movedFrom() == null ? p : p.movedFrom(first.movedFrom());
        }
        if (first == null || now.decision() != Decision.STICKY || first.decision() == Decision.STICKY
                || !first.replica().id().equals(now.replica().id())) {
            return now;
        }
        Placement p = now.withDecision(first.decision(), first.reason() + "; admitted there: " + now.reason());
        return first.movedFrom() == null ? p : p.movedFrom(first.movedFrom());
    }
}
