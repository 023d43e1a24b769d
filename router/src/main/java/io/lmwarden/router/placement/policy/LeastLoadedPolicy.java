package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.pool.ReplicaView;

/** What vLLM's own data-parallel balancer does: every request to the lowest {@code waiting*4 + running}. */
public final class LeastLoadedPolicy implements PlacementPolicy {

    public static final String NAME = "least-loaded";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Placement place(PlacementRequest request) {
        ReplicaView best = LoadOrder.least(request.candidates(), LoadOrder.QUEUE_SCORE);
        return new Placement(best, Decision.NEW, "least-loaded: " + LoadOrder.describe(best));
    }
}
