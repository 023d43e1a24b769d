package io.lmwarden.operator.runtime;

import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.reconciler.ImageAllowList;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * How one operator process runs.
 *
 * @param namespaces     namespaces to watch; empty means all namespaces
 * @param defaults       settings ModelDeployments inherit (router image)
 * @param leaderElection lease settings, absent to run without leader election (tests, a single replica)
 * @param allowedImages  images ModelDeployments may run
 */
public record OperatorSettings(Set<String> namespaces, OperatorDefaults defaults, Optional<LeaderElection> leaderElection,
                               ImageAllowList allowedImages) {

    /** Lease-based leader election: only the holder of the Lease reconciles. */
    public record LeaderElection(String leaseName, Optional<String> leaseNamespace, String identity, Duration leaseDuration) {
    }

    public OperatorSettings {
        namespaces = Set.copyOf(namespaces);
    }

    /** Every image allowed. */
    public OperatorSettings(Set<String> namespaces, OperatorDefaults defaults, Optional<LeaderElection> leaderElection) {
        this(namespaces, defaults, leaderElection, ImageAllowList.allowAll());
    }
}
