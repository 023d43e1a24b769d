package io.lmwarden.router;

import io.lmwarden.router.config.RouterConfig;

import java.util.List;

/**
 * Where the router's replicas come from, chosen in {@link RouterMain}: the configured ones (a static
 * list or a Kubernetes Service), or simulated ones started in-process for {@code --simulate}. The
 * runtime only ever sees the resulting configuration, so it does not know the simulator.
 */
interface ReplicaSource extends AutoCloseable {

    /** The configuration the router runs with: the given one, with the source's replicas. */
    RouterConfig configure(RouterConfig config);

    /** What to tell the operator at startup, one line each. */
    List<String> describe();

    @Override
    void close();

    static ReplicaSource forConfig(RouterConfig config) {
        return config.discovery().simulate() > 0 ? SimulatedReplicas.start(config) : CONFIGURED;
    }

    ReplicaSource CONFIGURED = new ReplicaSource() {
        @Override
        public RouterConfig configure(RouterConfig config) {
            return config;
        }

        @Override
        public List<String> describe() {
            return List.of();
        }

        @Override
        public void close() {
        }
    };
}
