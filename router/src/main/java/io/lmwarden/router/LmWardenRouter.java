package io.lmwarden.router;

import io.lmwarden.router.config.RouterConfig;

/**
 * The running router: replica pool, placement, proxy and admin API on one Vert.x instance.
 * {@link #start} blocks until the HTTP port is bound; {@link #close} drains and stops. It routes to
 * the replicas its configuration lists or discovers; {@code --simulate} is {@link RouterMain}'s business.
 */
public final class LmWardenRouter implements AutoCloseable {

    private final RouterRuntime runtime;

    private LmWardenRouter(RouterRuntime runtime) {
        this.runtime = runtime;
    }

    public static LmWardenRouter start(RouterConfig config) {
        return start(config, RouterTuning.DEFAULTS);
    }

    /** With internal constants changed, for tests ({@link RouterTuning}). */
    public static LmWardenRouter start(RouterConfig config, RouterTuning tuning) {
        return new LmWardenRouter(RouterRuntime.start(config, tuning));
    }

    /** The bound HTTP port (useful with port 0). */
    public int port() {
        return runtime.port();
    }

    /** Where the admin API and UI answer: {@code adminPort} when set, else the inference port. */
    public String adminUrl() {
        return "http://127.0.0.1:" + runtime.adminPort();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    @Override
    public void close() {
        runtime.close();
    }
}
