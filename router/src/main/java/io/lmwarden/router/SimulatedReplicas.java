package io.lmwarden.router;

import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.sim.AgentModelNames;
import io.lmwarden.sim.OutputLength;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;

import java.util.List;

/** {@code --simulate N}: N simulated vLLM replicas in this process, with the profile's prefill rate as the router's prior. */
final class SimulatedReplicas implements ReplicaSource {

    private final SimCluster cluster;
    private final SimProfile profile;

    private SimulatedReplicas(SimCluster cluster, SimProfile profile) {
        this.cluster = cluster;
        this.profile = profile;
    }

    static SimulatedReplicas start(RouterConfig config) {
        SimProfile profile = SimProfile.named(config.simulation().profile());
        SimCluster cluster = SimCluster.start(SimOptions.defaults()
                .withReplicas(config.discovery().simulate())
                .withProfile(profile)
                // Claude Code's default model names too, and replies of chat-like lengths ending in "stop",
                // so agents work against --simulate without extra settings.
                .withServedModelNames(AgentModelNames.servedWith(config.simulation().model()))
                .withOutputLength(OutputLength.REALISTIC)
                .withTimeScale(config.simulation().timeScale()));
        return new SimulatedReplicas(cluster, profile);
    }

    @Override
    public RouterConfig configure(RouterConfig config) {
        // The prior is in engine time, as the profile's; the runtime scales it by the time scale.
        // The replicas are started: from here on they are a static list like any other.
        return config.with(DiscoverySettings.SIMULATE, 0).withReplicas(cluster.replicas().stream().map(r -> r.id() + "=" + r.url()).toList())
                .withPrefillMsPerToken(profile.prefillMsPerToken());
    }

    @Override
    public List<String> describe() {
        return cluster.urls().stream().map(u -> "simulated replica " + u).toList();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
