package io.lmwarden.router;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.sim.AgentModelNames;
import io.lmwarden.sim.OutputLength;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.SimReplica;
import io.lmwarden.sim.kvevents.KvEventsConfig;

import java.util.ArrayList;
import java.util.List;

/** {@code --simulate N}: N simulated vLLM replicas in this process, with the profile's prefill rate as the router's prior. */
final class SimulatedReplicas implements ReplicaSource {

    private final SimCluster cluster;
    private final SimProfile profile;
    private final boolean kvEvents;

    private SimulatedReplicas(SimCluster cluster, SimProfile profile, boolean kvEvents) {
        this.cluster = cluster;
        this.profile = profile;
        this.kvEvents = kvEvents;
    }

    static SimulatedReplicas start(RouterConfig config) {
        SimProfile profile = SimProfile.named(config.simulation().profile());
        int n = config.discovery().simulate();
        boolean kvEvents = config.kvEvents().enabled();
        SimOptions options = SimOptions.defaults();
        if (kvEvents) {
            // A wildcard address, as the operator configures vLLM (its publisher binds only those, it connects to
            // anything else); port 0: each replica binds ports of its own, read back once it is up.
            ObjectNode kv = new ObjectMapper().createObjectNode().put("enable_kv_cache_events", true).put("publisher", "zmq")
                    .put("endpoint", "tcp://*:0").put("replay_endpoint", "tcp://*:0")
                    .put("topic", config.kvEvents().topic());
            options = options.withKvEvents(KvEventsConfig.parse(kv.toString()));
        }
        SimCluster cluster = SimCluster.start(options
                .withReplicas(n)
                .withProfile(profile)
                // Claude Code's default model names too, and replies of chat-like lengths ending in "stop",
                // so agents work against --simulate without extra settings.
                .withServedModelNames(AgentModelNames.servedWith(config.simulation().model()))
                .withOutputLength(OutputLength.REALISTIC)
                .withTimeScale(config.simulation().timeScale()));
        return new SimulatedReplicas(cluster, profile, kvEvents);
    }

    @Override
    public RouterConfig configure(RouterConfig config) {
        // The prior is in engine time, as the profile's; the runtime scales it by the time scale.
        // The replicas are started: from here on they are a static list like any other.
        List<String> entries = new ArrayList<>();
        for (SimReplica r : cluster.replicas()) {
            entries.add(r.id() + "=" + r.url() + (kvEvents
                    ? "#kv=" + r.kvEventPorts().get(0) + "&replay=" + r.kvEventReplayPorts().get(0) : ""));
        }
        return config.with(DiscoverySettings.SIMULATE, 0).withReplicas(entries).withPrefillMsPerToken(profile.prefillMsPerToken());
    }

    @Override
    public List<String> describe() {
        return cluster.replicas().stream().map(r -> "simulated replica " + r.url()
                + (kvEvents ? " (KV events from port " + r.kvEventPorts().get(0) + ")" : "")).toList();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
