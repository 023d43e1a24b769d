package io.lmwarden.router.placement;

import java.util.OptionalInt;

/** Picks one replica for a request from an immutable snapshot of the pool, says why, and says what kind of policy it is. */
public interface PlacementPolicy {

    /** The name used in config, the API and metrics, e.g. {@code affinity}. */
    String name();

    /** Whether it keeps each session on a home replica (the UI's "affinity on/off"). */
    default boolean pinsSessions() {
        return false;
    }

    /** The in-flight requests at which a home replica gives a session's step away, for policies that pin. */
    default OptionalInt spillThreshold() {
        return OptionalInt.empty();
    }

    Placement place(PlacementRequest request);
}
