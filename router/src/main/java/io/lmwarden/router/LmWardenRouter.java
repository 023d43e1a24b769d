package io.lmwarden.router;

import io.lmwarden.router.config.RouterConfig;

import java.util.List;

/**
 * The running router: replica pool, placement, proxy and admin API on one Vert.x instance.
 * {@link #start} blocks until the HTTP port is bound; {@link #close} drains and stops.
 */
public final class LmWardenRouter implements AutoCloseable {

    private final RouterRuntime runtime;

    private LmWardenRouter(RouterRuntime runtime) {
        this.runtime = runtime;
    }

    public static LmWardenRouter start(RouterConfig config) {
        return new LmWardenRouter(RouterRuntime.start(config));
    }

    /** The bound HTTP port (useful with port 0). */
    public int port() {
        return runtime.port();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** URLs of the replicas started by {@code simulate}, empty otherwise. */
    public List<String> simulatedReplicaUrls() {
        return runtime.simulatedReplicaUrls();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
