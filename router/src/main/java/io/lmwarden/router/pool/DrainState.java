package io.lmwarden.router.pool;

import java.util.Locale;

/**
 * Whether a replica is being taken out of rotation: {@code none}; {@code draining} (it takes no new sessions, its
 * sessions move at their next step, requests in flight there finish); {@code drained} (draining, and nothing is in
 * flight there any more: it may go). A replica drains while its EndpointSlice endpoint is terminating but still
 * serving, or while an operator drains it ({@code POST /api/replicas/{id}/drain}).
 */
public enum DrainState {
    NONE, DRAINING, DRAINED;

    /** {@code none}, {@code draining} or {@code drained}: what {@code /api/replicas} shows. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Draining or drained: no new work goes there. */
    public boolean active() {
        return this != NONE;
    }

    /** A replica that drains is drained once nothing is in flight there. */
    static DrainState of(boolean draining, int inFlight) {
        return !draining ? NONE : inFlight > 0 ? DRAINING : DRAINED;
    }
}
