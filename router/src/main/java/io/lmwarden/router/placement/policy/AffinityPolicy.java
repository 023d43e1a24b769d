package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.pool.ReplicaView;

import java.util.List;
import java.util.OptionalInt;

/**
 * Session affinity: a new session goes to the least-loaded replica and is pinned there; later steps
 * stay ({@code STICKY}) until the home replica has more requests in flight than the spill threshold,
 * when the step goes to the least-loaded other replica and the session is re-pinned there ({@code SPILL}).
 */
public final class AffinityPolicy implements PlacementPolicy {

    public static final String NAME = "affinity";

    private final SessionHomes homes;
    private final int threshold;

    public AffinityPolicy(SessionHomes homes, SpillThreshold spillThreshold, int maxNumSeqs) {
        this.homes = homes;
        this.threshold = spillThreshold.resolve(maxNumSeqs);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean pinsSessions() {
        return true;
    }

    @Override
    public OptionalInt spillThreshold() {
        return OptionalInt.of(threshold);
    }

    @Override
    public Placement place(PlacementRequest request) {
        SessionHomes.Step step = homes.step(request, threshold, BY_LOAD);
        if (step.decided().isPresent()) {
            return step.decided().get();
        }
        ReplicaView h = step.home();
        return new Placement(h, Decision.STICKY, "home replica, " + h.inFlight() + " in flight (spill threshold " + threshold + ")");
    }

    /** New sessions and spills both go to the least loaded; affinity does not guess what a replica holds. */
    private static final SessionHomes.Choices BY_LOAD = new SessionHomes.Choices() {
        @Override
        public Placement forNewSession(List<ReplicaView> candidates, String why) {
            ReplicaView target = LoadOrder.least(candidates, LoadOrder.FOR_NEW_SESSION);
            return new Placement(target, Decision.NEW, why + " → least loaded: " + LoadOrder.describe(target));
        }

        @Override
        public ReplicaView overCapTarget(ReplicaView home, List<ReplicaView> others) {
            return LoadOrder.least(others, LoadOrder.FOR_NEW_SESSION);
        }

        @Override
        public int expectedCachedTokens(ReplicaView r) {
            return 0;
        }
    };
}
