package io.lmwarden.router.placement.admission;

import java.util.List;

/**
 * What the other routers of a cluster hold resident, so that admission keeps one KV budget per replica
 * however many routers admit to it. A router alone has none.
 */
public interface PeerResidents {

    /** The sessions the other routers hold resident on the replica, each session once, as of their last reports. */
    List<PeerResident> on(String replicaId);

    /** Whether another router holds the session resident: its blocks are counted already and it is not a newcomer. */
    boolean holds(String session);

    /**
     * Whether a step of the session is in flight through another router. Such a session is not paused, though this
     * router, which sees only every other step of it, has none of its steps running.
     */
    default boolean runsElsewhere(String session) {
        return false;
    }

    PeerResidents NONE = new PeerResidents() {
        @Override
        public List<PeerResident> on(String replicaId) {
            return List.of();
        }

        @Override
        public boolean holds(String session) {
            return false;
        }
    };
}
