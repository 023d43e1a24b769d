package io.lmwarden.router;

import io.lmwarden.router.config.RouterConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;

/**
 * The router's two HTTP clients towards the replicas: the proxy's, whose connections to each replica are
 * capped (a request waits for one only so long), and the checks' (health and metrics), with connections of
 * their own, so that a replica busy with a full proxy pool still answers them.
 */
record UpstreamClients(HttpClient proxy, HttpClient checks) {

    /** Connections per replica for health and metric checks. */
    static final int CHECK_CONNECTIONS = 2;

    static UpstreamClients create(Vertx vertx, RouterConfig config) {
        int cap = config.upstream().maxConnectionsPerReplica();
        HttpClient proxy = vertx.createHttpClient(new HttpClientOptions()
                        .setConnectTimeout((int) config.upstream().connectTimeout().toMillis())
                        .setKeepAlive(true)
                        .setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(cap).setMaxWaitQueueSize(cap));
        HttpClient checks = vertx.createHttpClient(new HttpClientOptions()
                        .setConnectTimeout((int) Math.min(config.upstream().connectTimeout().toMillis(),
                                config.discovery().healthTimeout().toMillis()))
                        .setKeepAlive(true)
                        .setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(CHECK_CONNECTIONS));
        return new UpstreamClients(proxy, checks);
    }

    void close() {
        RouterRuntime.await(proxy.close());
        RouterRuntime.await(checks.close());
    }
}
