package io.lmwarden.router.placement;

import io.lmwarden.router.config.SpillThreshold;

import java.util.List;

/** Builds a policy by its name; the list of names is what {@code --policy} and {@code PUT /api/policy} accept. */
public final class PolicyFactory {

    public static final List<String> NAMES = List.of(AffinityPolicy.NAME, LeastLoadedPolicy.NAME, RoundRobinPolicy.NAME);

    private final AffinityTable affinity;
    private final int maxNumSeqs;

    public PolicyFactory(AffinityTable affinity, int maxNumSeqs) {
        this.affinity = affinity;
        this.maxNumSeqs = maxNumSeqs;
    }

    public PlacementPolicy create(String name, SpillThreshold spillThreshold) {
        return switch (name) {
            case AffinityPolicy.NAME -> new AffinityPolicy(affinity, spillThreshold, maxNumSeqs);
            case LeastLoadedPolicy.NAME -> new LeastLoadedPolicy();
            case RoundRobinPolicy.NAME -> new RoundRobinPolicy();
            default -> throw new IllegalArgumentException("unknown policy '" + name + "'; choose one of " + String.join(", ", NAMES));
        };
    }

    /** Whether a policy keeps sessions on a home replica (the UI's "affinity on/off"). */
    public static boolean pinsSessions(PlacementPolicy p) {
        return p instanceof AffinityPolicy;
    }
}
