package io.lmwarden.sim;

import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.http.ReplicaServer;

/** One running simulated replica: its engine and its HTTP server. */
public final class SimReplica {
    private final String id;
    private final String url;
    private final int port;
    private final Engine engine;
    private final ReplicaServer server;

    SimReplica(String id, String host, int port, Engine engine, ReplicaServer server) {
        this.id = id;
        this.port = port;
        this.url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        this.engine = engine;
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

    public EngineSnapshot snapshot() {
        return engine.snapshot();
    }

    ReplicaServer server() {
        return server;
    }

    Engine engine() {
        return engine;
    }
}
