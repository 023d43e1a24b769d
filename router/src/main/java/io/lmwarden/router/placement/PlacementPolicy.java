package io.lmwarden.router.placement;

/** Picks one replica for a request from an immutable snapshot of the pool, and says why. */
public interface PlacementPolicy {

    /** The name used in config, the API and metrics, e.g. {@code affinity}. */
    String name();

    Placement place(PlacementRequest request);
}
