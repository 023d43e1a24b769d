package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.prefix.TtftEstimator;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.SpillThreshold;

import java.util.List;

/** Builds a policy by its name; the list of names is what {@code --policy} and {@code PUT /api/policy} accept. */
public final class PolicyFactory {

    /** Checked when the setting is read ({@link PlacementSettings#POLICY}); a test checks that each one is built here. */
    public static final List<String> NAMES = PlacementSettings.POLICIES;

    private final SessionHomes homes;
    private final int maxNumSeqs;
    private final TtftEstimator estimator;
    private final double timeScale;

    public PolicyFactory(SessionHomes homes, int maxNumSeqs, TtftEstimator estimator, double timeScale) {
        this.homes = homes;
        this.maxNumSeqs = maxNumSeqs;
        this.estimator = estimator;
        this.timeScale = timeScale;
    }

    public PlacementPolicy create(String name, SpillThreshold spillThreshold) {
        return switch (name) {
            case AffinityPolicy.NAME -> new AffinityPolicy(homes, spillThreshold, maxNumSeqs);
            case CostPolicy.NAME -> new CostPolicy(homes, spillThreshold, maxNumSeqs, estimator, timeScale);
            case LeastLoadedPolicy.NAME -> new LeastLoadedPolicy();
            case RoundRobinPolicy.NAME -> new RoundRobinPolicy();
            case PassthroughPolicy.NAME -> new PassthroughPolicy();
            default -> throw new IllegalArgumentException("unknown policy '" + name + "'; choose one of " + String.join(", ", NAMES));
        };
    }
}
