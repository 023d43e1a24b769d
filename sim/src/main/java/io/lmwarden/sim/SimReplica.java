package io.lmwarden.sim;

import io.lmwarden.sim.dp.DataParallelEngines;
import io.lmwarden.sim.http.ReplicaServer;
import io.lmwarden.sim.kvevents.ZmqKvEventPublisher;

import java.util.List;

/** One running simulated replica (one API server): its engines and its HTTP server. */
public final class SimReplica {
    private final String id;
    private final String url;
    private final int port;
    private final DataParallelEngines engines;
    private final ReplicaServer server;
    private final List<ZmqKvEventPublisher> kvEventPublishers;

    SimReplica(String id, String host, int port, DataParallelEngines engines, ReplicaServer server,
               List<ZmqKvEventPublisher> kvEventPublishers) {
        this.id = id;
        this.port = port;
        this.url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        this.engines = engines;
        this.server = server;
        this.kvEventPublishers = List.copyOf(kvEventPublishers);
    }

    /**
     * Where each engine publishes its KV cache events (rank order), as bound: a configured tcp port 0 is the ephemeral
     * port that engine got. Empty when events are off.
     */
    public List<String> kvEventEndpoints() {
        return kvEventPublishers.stream().map(ZmqKvEventPublisher::endpoint).toList();
    }

    /** Each engine's replay endpoint as bound (rank order), empty when events are off or there is no replay socket. */
    public List<String> kvEventReplayEndpoints() {
        return kvEventPublishers.stream().map(ZmqKvEventPublisher::replayEndpoint).filter(java.util.Objects::nonNull).toList();
    }

    /** Each engine's KV-event PUB port on this host (rank order): what a subscriber connects to. */
    public List<Integer> kvEventPorts() {
        return kvEventPublishers.stream().map(ZmqKvEventPublisher::port).toList();
    }

    /** Each engine's replay port (rank order), empty without replay sockets. */
    public List<Integer> kvEventReplayPorts() {
        return kvEventPublishers.stream().filter(p -> p.replayEndpoint() != null).map(ZmqKvEventPublisher::replayPort).toList();
    }

    /** Drops every cached block of every engine, as vLLM's {@code POST /reset_prefix_cache} does. */
    public void resetPrefixCache() {
        engines.engines().forEach(io.lmwarden.sim.engine.Engine::resetPrefixCache);
    }

    List<ZmqKvEventPublisher> kvEventPublishers() {
        return kvEventPublishers;
    }

    public String id() {
        return id;
    }

    public String url() {
        return url;
    }

    public int port() {
        return port;
    }

    /** The first engine's state: the whole replica unless it is a data-parallel server. */
    public EngineSnapshot snapshot() {
        return engines.engines().get(0).snapshot();
    }

    /** Every engine's state, in rank order (one element unless the replica is a data-parallel server). */
    public List<EngineSnapshot> engineSnapshots() {
        return engines.snapshots();
    }

    /** How many times its {@code GET /version} was answered. */
    public long versionRequests() {
        return server.versionRequests();
    }

    ReplicaServer server() {
        return server;
    }

    DataParallelEngines engines() {
        return engines;
    }
}
