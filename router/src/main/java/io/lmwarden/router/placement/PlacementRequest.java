package io.lmwarden.router.placement;

import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;

/**
 * What a policy decides on: the request, the replicas that passed the filters (never empty), and the
 * whole snapshot they came from.
 */
public record PlacementRequest(RequestFacts facts, List<ReplicaView> candidates, PoolSnapshot pool, long nowNanos) {

    public PlacementRequest {
        candidates = List.copyOf(candidates);
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("a placement needs at least one candidate replica");
        }
    }
}
