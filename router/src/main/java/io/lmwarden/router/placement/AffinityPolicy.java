package io.lmwarden.router.placement;

import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;
import java.util.Optional;

/**
 * Session affinity: a new session goes to the least-loaded replica and is pinned there; later steps
 * stay ({@code STICKY}) until the home replica has more requests in flight than the spill threshold,
 * when the step goes to the least-loaded other replica and the session is re-pinned there ({@code SPILL}).
 */
public final class AffinityPolicy implements PlacementPolicy {

    public static final String NAME = "affinity";

    private final AffinityTable table;
    private final SpillThreshold spillThreshold;
    private final int maxNumSeqs;

    public AffinityPolicy(AffinityTable table, SpillThreshold spillThreshold, int maxNumSeqs) {
        this.table = table;
        this.spillThreshold = spillThreshold;
        this.maxNumSeqs = maxNumSeqs;
    }

    @Override
    public String name() {
        return NAME;
    }

    public int threshold() {
        return spillThreshold.resolve(maxNumSeqs);
    }

    @Override
    public Placement place(PlacementRequest request) {
        RequestFacts f = request.facts();
        String sessionKey = f.sessionKey().value();
        Optional<String> home = table.lookup(f.model(), sessionKey, request.nowNanos());
        if (home.isEmpty()) {
            ReplicaView target = LoadOrder.least(request.candidates(), LoadOrder.FOR_NEW_SESSION);
            table.pin(f.model(), sessionKey, target.id(), request.nowNanos());
            return new Placement(target, Decision.NEW, "new session → least loaded: " + LoadOrder.describe(target));
        }
        Optional<ReplicaView> homeView = request.candidates().stream().filter(r -> r.id().equals(home.get())).findFirst();
        if (homeView.isEmpty()) {
            ReplicaView target = LoadOrder.least(request.candidates(), LoadOrder.FOR_NEW_SESSION);
            table.pin(f.model(), sessionKey, target.id(), request.nowNanos());
            return new Placement(target, Decision.NEW, "home " + home.get() + " unavailable → re-placed");
        }
        ReplicaView h = homeView.get();
        int threshold = threshold();
        // The step would push the home over its threshold: move, but only to somewhere less busy.
        if (h.inFlight() >= threshold) {
            List<ReplicaView> others = request.candidates().stream().filter(r -> r != h).toList();
            if (!others.isEmpty()) {
                ReplicaView target = LoadOrder.least(others, LoadOrder.FOR_NEW_SESSION);
                if (target.inFlight() < h.inFlight()) {
                    table.pin(f.model(), sessionKey, target.id(), request.nowNanos());
                    return new Placement(target, Decision.SPILL, "home " + h.id() + " has " + h.inFlight()
                            + " in flight (spill threshold " + threshold + ") → " + target.id()).movedFrom(h.id());
                }
            }
        }
        return new Placement(h, Decision.STICKY, "home replica, " + h.inFlight() + " in flight (spill threshold " + threshold + ")");
    }
}
