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
    /** The first replica's KV-event port (replica i: + i; its replay port: + replicas + i), 0 when they publish none. */
    private final int kvEventsBase;

    private SimulatedReplicas(SimCluster cluster, SimProfile profile, int kvEventsBase) {
        this.cluster = cluster;
        this.profile = profile;
        this.kvEventsBase = kvEventsBase;
    }

    static SimulatedReplicas start(RouterConfig config) {
        SimProfile profile = SimProfile.named(config.simulation().profile());
        int n = config.discovery().simulate();
        int kvBase = config.kvEvents().enabled() ? FreePorts.consecutive(2 * n) : 0;
        SimOptions options = SimOptions.defaults();
        if (kvBase > 0) {
            // As the operator configures vLLM: events on the base port, replays after every replica's events port; a
            // wildcard address, since vLLM's publisher binds only those (it connects to anything else).
            ObjectNode kv = new ObjectMapper().createObjectNode().put("enable_kv_cache_events", true).put("publisher", "zmq")
                    .put("endpoint", "tcp://*:" + kvBase).put("replay_endpoint", "tcp://*:" + (kvBase + n))
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
        return new SimulatedReplicas(cluster, profile, kvBase);
    }

    @Override
    public RouterConfig configure(RouterConfig config) {
        // The prior is in engine time, as the profile's; the runtime scales it by the time scale.
        // The replicas are started: from here on they are a static list like any other.
        int n = cluster.replicas().size();
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SimReplica r = cluster.replicas().get(i);
            entries.add(r.id() + "=" + r.url() + (kvEventsBase > 0 ? "#kv=" + (kvEventsBase + i) + "&replay=" + (kvEventsBase + n + i) : ""));
        }
        return config.with(DiscoverySettings.SIMULATE, 0).withReplicas(entries).withPrefillMsPerToken(profile.prefillMsPerToken());
    }

    @Override
    public List<String> describe() {
        return cluster.urls().stream().map(u -> "simulated replica " + u
                + (kvEventsBase > 0 ? " (KV events from port " + kvEventsBase + ")" : "")).toList();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
