package io.lmwarden.router;

import io.lmwarden.common.build.BuildVersion;
import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.api.AdminAuth;
import io.lmwarden.router.api.DrainApi;
import io.lmwarden.router.api.PolicyApi;
import io.lmwarden.router.api.Probes;
import io.lmwarden.router.api.ReplicaRows;
import io.lmwarden.router.api.ReplicasApi;
import io.lmwarden.router.api.SessionsApi;
import io.lmwarden.router.api.StatsApi;
import io.lmwarden.router.cluster.InfinispanCluster;
import io.lmwarden.router.cluster.LocalCluster;
import io.lmwarden.router.cluster.RouterCluster;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.edge.ClientConnections;
import io.lmwarden.router.placement.pins.AffinityTable;
import io.lmwarden.router.proxy.PassThrough;
import io.lmwarden.router.proxy.ProxyContext;
import io.lmwarden.router.proxy.ProxyHandler;
import io.lmwarden.router.session.ConversationLineages;
import io.lmwarden.router.session.RequestFactsReader;
import io.lmwarden.router.session.SessionKeyResolver;
import io.lmwarden.router.stats.LineWriter;
import io.lmwarden.router.stats.RequestLog;
import io.lmwarden.router.tenant.TenantResolver;
import io.lmwarden.router.tenant.TenantSecret;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Wires the router's parts together and owns their lifecycle: the cluster (joined before any port opens), the
 * domain objects ({@link RouterParts}), the HTTP clients ({@link UpstreamClients}), the routes
 * ({@link RouteTable}), the periodic jobs ({@link RouterTimers}) and the ports ({@link RouterServers}).
 */
final class RouterRuntime {

    private static final Logger LOG = Logger.getLogger(RouterRuntime.class.getName());

    private final RouterConfig config;
    private final Vertx vertx;
    private final RouterParts parts;
    private final UpstreamClients clients;
    private final RouterTimers timers;
    private final RouterServers servers;
    private final LineWriter requestLines;
    private final AtomicBoolean stopping;

    private RouterRuntime(RouterConfig config, Vertx vertx, RouterParts parts, UpstreamClients clients, RouterTimers timers,
                          RouterServers servers, LineWriter requestLines, AtomicBoolean stopping) {
        this.stopping = stopping;
        this.config = config;
        this.vertx = vertx;
        this.parts = parts;
        this.clients = clients;
        this.timers = timers;
        this.servers = servers;
        this.requestLines = requestLines;
    }

    static RouterRuntime start(RouterConfig config, RouterTuning tuning) {
        // Before the HTTP port opens: a router joins and learns the existing pins before it serves.
        RouterCluster cluster = config.cluster().enabled()
                ? InfinispanCluster.start(config.cluster(), config.placement().affinityMaxEntries(), config.placement().sessionIdleTimeout())
                : new LocalCluster(new AffinityTable(config.placement().affinityMaxEntries(), config.placement().sessionIdleTimeout()));
        // epoll costs less CPU per request than NIO (router/README.md, "Transport"); without its library Vert.x falls back to NIO.
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(config.server().transport().equals("native")));
        LineWriter requestLines = new LineWriter(System.err, RequestLog.QUEUED_LINES, "lmw-request-log");
        AtomicBoolean stopping = new AtomicBoolean();
        RouterParts parts = null;
        try {
            parts = RouterParts.build(config, tuning, cluster, requestLines);
            UpstreamClients clients = UpstreamClients.create(vertx, config);
            ClientConnections connections = new ClientConnections(vertx, config.server().maxClientConnections(),
                    config.server().clientIdleTimeout());
            ProxyContext proxy = proxyContext(vertx, clients, config, parts);
            RouteTable routes = RouteTable.build(vertx, config.server(), connections, proxyHandler(proxy, config, cluster),
                    new PassThrough(proxy), adminApi(config, parts, stopping));
            parts.placing.adapterLoader().attach(new AdapterLoads(clients.proxy()));
            RouterTimers timers = RouterTimers.start(vertx, clients.checks(), config, parts);
            RouterServers servers = RouterServers.listen(vertx, config.server(), connections, routes);
            LogFields.info(LOG, "router listening", "port", servers.port(), "adminPort", servers.adminPortForLog(),
                    "discovery", parts.discovery.describe(), "policy", parts.placing.policy().get().name(),
                    "transport", transportName(vertx), "version", BuildVersion.of(RouterRuntime.class));
            return new RouterRuntime(config, vertx, parts, clients, timers, servers, requestLines, stopping);
        } catch (RuntimeException e) {
            if (parts != null) {
                parts.cacheViews.views().close();
            }
            requestLines.close();
            vertx.close();
            cluster.close();
            throw e;
        }
    }

    private static ProxyContext proxyContext(Vertx vertx, UpstreamClients clients, RouterConfig config, RouterParts parts) {
        return new ProxyContext(vertx, clients.proxy(), parts.pool, parts.snapshot, parts.placing.reservations(),
                parts.placing.admission(), parts.watching.metrics(), parts.inFlight, config.upstream(),
                parts.cacheViews.views()::followsAny);
    }

    /** Tenants are named and salted with a secret every router of the cluster agrees on before it serves. */
    private static ProxyHandler proxyHandler(ProxyContext proxy, RouterConfig config, RouterCluster cluster) {
        var tenants = config.tenants();
        return new ProxyHandler(proxy,
                new RequestFactsReader(new SessionKeyResolver(new ConversationLineages(ConversationLineages.PROMPTS_REMEMBERED))),
                new TenantResolver(tenants.header(), tenants.fromApiKey(), Optional.of(TenantSecret.resolve(tenants.secret(), cluster::agree).value())));
    }

    private static RouteTable.Admin adminApi(RouterConfig config, RouterParts parts, AtomicBoolean stopping) {
        AdminAuth auth = new AdminAuth(config.server().adminToken());
        RouterParts.Watching w = parts.watching;
        PolicyApi policy = new PolicyApi(parts.placing.policy(), parts.placing.admission());
        ReplicaRows rows = new ReplicaRows(parts.pool, parts.placing.admission(), w.sessions(), parts.pins(), w.history(), w.metrics(),
                parts.cacheViews.views(), parts.placing.adapters(), parts.placing.loraSlots(), parts.placing.adapterLoader());
        return new RouteTable.Admin(auth, new Probes(parts.snapshot, w.metrics(), stopping::get), policy,
                new SessionsApi(w.sessions(), parts.pins(), parts.pool::modelKey, auth),
                new StatsApi(w.tokenRates(), w.accounting()),
                new ReplicasApi(parts.snapshot, policy, rows, parts.placing.admission(), w.workingSets(), w.accounting(), parts.inFlight,
                        parts.cluster, parts.discovery.describe(), auth, parts.advising.advisor()),
                new DrainApi(parts.pool, parts.snapshot, parts.cluster));
    }

    /** What carries the sockets: "epoll", or "nio" (asked for, or epoll not available here). */
    static String transportName(Vertx vertx) {
        return vertx.isNativeTransportEnabled() ? "epoll" : "nio";
    }

    int port() {
        return servers.port();
    }

    /** The admin API's port: its own when {@code adminPort} is set, else the inference port. */
    int adminPort() {
        return servers.adminPort();
    }

    /**
     * Turns not-ready at once, keeps serving new connections for {@code shutdownAcceptFor} (load balancers stop sending),
     * then stops accepting and lets open streams and queued requests finish within what is left of {@code shutdownGrace};
     * then stops everything.
     */
    void close() {
        stopping.set(true);
        long graceMs = config.server().shutdownGrace().toMillis();
        long acceptMs = Math.min(graceMs, config.server().shutdownAcceptFor().toMillis());
        if (acceptMs > 0) {
            LogFields.info(LOG, "not ready; still accepting", "forMs", acceptMs, "inFlight", parts.inFlight.active());
            try {
                Thread.sleep(acceptMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long finishMs = graceMs - acceptMs;
        LogFields.info(LOG, "no longer accepting; finishing open requests", "inFlight", parts.inFlight.active(), "withinMs", finishMs);
        Future<Void> shutdown = servers.shutdown(finishMs);
        try {
            parts.inFlight.whenDrained().get(finishMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LogFields.warn(LOG, "shutdown grace over", "inFlight", parts.inFlight.active());
        } catch (Exception e) {
            LogFields.warn(LOG, "shutdown wait interrupted", "cause", e);
        }
        try {
            await(shutdown);
        } catch (RuntimeException e) {
            LOG.fine(() -> "server shutdown: " + e);
        }
        timers.close();
        parts.cacheViews.views().close();
        parts.cluster.close();
        servers.closeAdmin();
        clients.close();
        await(vertx.close());
        // After the last request ended: its line is out before the shutdown's own lines.
        requestLines.close();
        parts.watching.metrics().close();
    }

    static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException(e.getCause() != null ? e.getCause().getMessage() : e.getMessage(), e);
        }
    }
}
