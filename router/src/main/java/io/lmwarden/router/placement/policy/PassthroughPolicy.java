package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.pool.ReplicaView;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * In front of a {@code vllm serve --data-parallel-size N} server, leave the choice of engine to vLLM's own
 * balancer: the request goes to the endpoint without an {@code X-data-parallel-rank} header. Among several
 * endpoints, the one with the fewest requests of this router in flight. The baseline ("off") of the
 * published A/B, which ran one such server. The router cannot tell which engine vLLM chose, so its own
 * counters for the request go to the endpoint's first rank.
 */
public final class PassthroughPolicy implements PlacementPolicy {

    public static final String NAME = "passthrough";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Placement place(PlacementRequest request) {
        Map<String, Integer> inFlight = new LinkedHashMap<>();
        Map<String, ReplicaView> first = new LinkedHashMap<>();
        List<ReplicaView> candidates = request.candidates();
        for (ReplicaView r : candidates) {
            inFlight.merge(r.endpointId(), r.inFlight(), Integer::sum);
            first.putIfAbsent(r.endpointId(), r);
        }
        String best = null;
        for (Map.Entry<String, Integer> e : inFlight.entrySet()) {
            if (best == null || e.getValue() < inFlight.get(best)) {
                best = e.getKey();
            }
        }
        ReplicaView target = first.get(best);
        return new Placement(target, Decision.NEW, "passthrough: endpoint " + best + " (" + inFlight.get(best)
                + " in flight) balances its own engines").leavingRankToEngine();
    }
}
