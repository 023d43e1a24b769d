package io.lmwarden.router.placement.pins;

import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.pool.ReplicaView;

import java.util.List;

/**
 * Narrows the replicas a session without a usable home may go to, before the policy chooses among them (LoRA adapters:
 * {@code placement.lora.AdapterPlacement}). Never to none: a choice keeps at least one of the request's candidates.
 */
public interface NewSessionFilter {

    /** The candidates left, and why (empty when all stay). */
    record Choice(List<ReplicaView> candidates, String why) {

        public Choice {
            candidates = List.copyOf(candidates);
            if (candidates.isEmpty()) {
                throw new IllegalArgumentException("a new session needs at least one candidate replica");
            }
        }
    }

    /** Keeps every candidate. */
    NewSessionFilter ALL = request -> new Choice(request.candidates(), "");

    Choice choose(PlacementRequest request);

    /**
     * The session was placed on {@code replica}, told while the placement is still being decided, so that the next new
     * session's choice already counts it (a reservation, made once the request is on its way, would come too late for
     * a burst of new sessions).
     */
    default void placed(PlacementRequest request, ReplicaView replica) {
    }
}
