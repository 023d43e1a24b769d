package io.lmwarden.sim;

import io.lmwarden.sim.dp.DataParallelEngines;
import io.lmwarden.sim.http.ReplicaServer;

import java.util.List;

/** One running simulated replica (one API server): its engines and its HTTP server. */
public final class SimReplica {
    private final String id;
    private final String url;
    private final int port;
    private final DataParallelEngines engines;
    private final ReplicaServer server;

    SimReplica(String id, String host, int port, DataParallelEngines engines, ReplicaServer server) {
        this.id = id;
        this.port = port;
        this.url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        this.engines = engines;
        this.server = server;
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

    ReplicaServer server() {
        return server;
    }

    DataParallelEngines engines() {
        return engines;
    }
}
