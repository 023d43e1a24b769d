package io.lmwarden.router;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.api.AdminApi;
import io.lmwarden.router.api.AdminAuth;
import io.lmwarden.router.edge.ClientConnections;
import io.lmwarden.router.edge.ClientErrors;
import io.lmwarden.router.edge.HeaderDeadline;
import io.lmwarden.router.stats.LineWriter;
import io.lmwarden.router.stats.RequestLog;
import io.lmwarden.router.session.TenantResolver;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import java.util.LinkedHashMap;
import java.util.Map;
import io.lmwarden.router.api.WebUi;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.cluster.InfinispanCluster;
import io.lmwarden.router.cluster.LoadReport;
import io.lmwarden.router.cluster.LocalCluster;
import io.lmwarden.router.cluster.RouterCluster;
import io.lmwarden.router.cluster.TenantSecret;
import io.lmwarden.router.placement.SessionPins;
import io.lmwarden.router.placement.AffinityTable;
import io.lmwarden.router.placement.PrefillRates;
import io.lmwarden.router.diagnostics.LiveWorkingSets;
import io.lmwarden.router.diagnostics.PrefixBreakDetector;
import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.PrefixIndexes;
import io.lmwarden.router.placement.Reservations;
import io.lmwarden.router.placement.TtftEstimator;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.AdmissionRules;
import io.lmwarden.router.placement.PolicyFactory;
import io.lmwarden.router.placement.PolicyHolder;
import io.lmwarden.router.pool.EndpointSliceDiscovery;
import io.lmwarden.router.pool.EngineMetricsScraper;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaDiscovery;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.StaticReplicaDiscovery;
import io.lmwarden.router.proxy.ApiErrors;
import io.lmwarden.router.proxy.InFlightTracker;
import io.lmwarden.router.proxy.PassThrough;
import io.lmwarden.router.proxy.ProxyContext;
import io.lmwarden.router.proxy.ProxyHandler;
import io.lmwarden.router.proxy.RetryBudget;
import io.lmwarden.router.proxy.RouterTimestamps;
import io.lmwarden.router.session.ApiFlavor;
import io.lmwarden.router.session.ConversationLineages;
import io.lmwarden.router.session.RequestFactsReader;
import io.lmwarden.router.session.SessionKeyResolver;
import io.lmwarden.router.stats.RequestAccounting;
import io.lmwarden.router.stats.RouterMetrics;
import io.lmwarden.router.stats.ReplicaHistory;
import io.lmwarden.router.stats.SessionLog;
import io.lmwarden.common.build.BuildVersion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import java.util.logging.Logger;

/** Wires the router's parts together and owns their lifecycle. */
final class RouterRuntime {

    private static final Logger LOG = Logger.getLogger(RouterRuntime.class.getName());
    private static final long AFFINITY_SWEEP_MS = 30_000;
    /** How often a router tells its peers its load (engine time; divided by the time scale): new-session placement sees theirs at most this late. */
    private static final long LOAD_REPORT_MS = 100;
    /** The UI's per-replica history (recent hit rate, requests and hits chart) is sampled this often. */
    private static final long HISTORY_SAMPLE_MS = 1000;
    /** Until an engine publishes cache_config_info: the reference replica's ~38k tokens. */
    private static final int DEFAULT_KV_CAPACITY_TOKENS = 38_400;
    /** Sessions whose last prompt shape is kept for prefix-break detection (≈ 8 B per 16 tokens each). */
    private static final int SESSIONS_WITH_PROMPT_HISTORY = 4096;
    /** A typical agent step holds its sequence slot for ~256 output tokens at ~25 ms each. */
    private static final double TYPICAL_DECODE_ENGINE_MS = 256 * 25;
    /** Prompts of keyless conversations kept to recognise their next steps by (≈ 100 B each). */
    private static final int KEYLESS_PROMPTS_REMEMBERED = 65_536;
    /** Session log bound: 2,000 × 50 steps of ~400 B each is at most ~40 MB, whatever clients send (keys are capped). */
    private static final int SESSIONS_LOGGED = 2_000;
    private static final int STEPS_LOGGED_PER_SESSION = 50;
    /** Request-log lines waiting for stderr at most (a few seconds of a busy router's lines); beyond, dropped and counted. */
    private static final int REQUEST_LOG_QUEUE = 65_536;
    /** A session counts towards the KV demand while its last step is at most this old, in workload time. */
    private static final Duration ACTIVE_WINDOW_WORKLOAD = Duration.ofMinutes(1);

    private final RouterConfig config;
    private final Vertx vertx;
    private final ReplicaDiscovery discovery;
    private final EngineMetricsScraper scraper;
    private final List<HttpClient> clients;
    private final HttpServer server;
    private final HttpServer adminServer;
    private final InFlightTracker inFlight;
    private final RouterMetrics metrics;
    private final RouterCluster cluster;
    private final LineWriter requestLines;

    private RouterRuntime(RouterConfig config, Vertx vertx, ReplicaDiscovery discovery, EngineMetricsScraper scraper,
                          List<HttpClient> clients, HttpServer server, HttpServer adminServer, InFlightTracker inFlight,
                          RouterMetrics metrics, RouterCluster cluster, LineWriter requestLines) {
        this.cluster = cluster;
        this.requestLines = requestLines;
        this.config = config;
        this.vertx = vertx;
        this.discovery = discovery;
        this.scraper = scraper;
        this.clients = clients;
        this.server = server;
        this.adminServer = adminServer;
        this.inFlight = inFlight;
        this.metrics = metrics;
    }

    static RouterRuntime start(RouterConfig config) {
        RouterCluster cluster = config.cluster().enabled()
                // Before the HTTP port opens: a router joins and learns the existing pins before it serves.
                ? InfinispanCluster.start(config.cluster(), config.placement().affinityMaxEntries(), config.placement().sessionIdleTimeout())
                : new LocalCluster(new AffinityTable(config.placement().affinityMaxEntries(), config.placement().sessionIdleTimeout()));
        // epoll costs less CPU per request than NIO (router/README.md, "Transport"); without its library Vert.x falls back to NIO.
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(config.server().transport().equals("native")));
        LineWriter requestLines = new LineWriter(System.err, REQUEST_LOG_QUEUE, "lmw-request-log");
        try {
            ReplicaDiscovery discovery = config.discovery().k8sService().isPresent()
                    ? new EndpointSliceDiscovery(config.discovery().k8sService().get(), config.discovery().namespace())
                    : new StaticReplicaDiscovery(config.discovery().replicas());
            ReplicaPool pool = new ReplicaPool(config.discovery().metricsStaleAfter());
            SessionPins affinity = cluster.pins();
            RouterMetrics metrics = new RouterMetrics(pool, affinity, BuildVersion.of(RouterRuntime.class));
            pool.onAdded(metrics::replicaDiscovered);
            SessionLog sessions = new SessionLog(SESSIONS_LOGGED, STEPS_LOGGED_PER_SESSION);
            ReplicaHistory history = new ReplicaHistory();
            PrefixIndexes prefixIndexes = new PrefixIndexes(DEFAULT_KV_CAPACITY_TOKENS);
            TokenRates tokenRates = new TokenRates();
            // The prior is in engine time; a simulator running K times faster prefills K times faster.
            PrefillRates prefillRates = new PrefillRates(config.placement().prefillMsPerToken() / config.simulation().timeScale());
            // Active means a step within a minute of workload time: a simulator K times faster gets 1/K of it.
            LiveWorkingSets workingSets = new LiveWorkingSets(
                    Duration.ofNanos((long) (ACTIVE_WINDOW_WORKLOAD.toNanos() / config.simulation().timeScale())), SESSIONS_WITH_PROMPT_HISTORY);
            RequestAccounting accounting = new RequestAccounting(metrics, sessions,
                    new PrefixBreakDetector(SESSIONS_WITH_PROMPT_HISTORY), prefillRates, tokenRates, workingSets);
            pool.onUnavailable(prefixIndexes::forget);
            pool.onUnavailable(affinity::release);
            TtftEstimator estimator = new TtftEstimator(prefixIndexes, prefillRates, config.placement().maxNumSeqs(),
                    TYPICAL_DECODE_ENGINE_MS / config.simulation().timeScale());
            PolicyHolder policy = new PolicyHolder(new PolicyFactory(affinity, config.placement().maxNumSeqs(), estimator, config.simulation().timeScale()),
                    config.placement().startPolicy(), config.placement().spillThreshold());
            // The proxy's connections to each replica are capped, and a request waits for one only so long.
            HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                            .setConnectTimeout((int) config.upstream().connectTimeout().toMillis())
                            .setKeepAlive(true)
                            .setTcpNoDelay(true),
                    new PoolOptions().setHttp1MaxSize(config.upstream().maxConnectionsPerReplica())
                            .setMaxWaitQueueSize(config.upstream().maxConnectionsPerReplica()));
            // Health and metric checks have their own connections: a replica busy with a full proxy pool still answers them.
            HttpClient checks = vertx.createHttpClient(new HttpClientOptions()
                            .setConnectTimeout((int) Math.min(config.upstream().connectTimeout().toMillis(), config.discovery().healthTimeout().toMillis()))
                            .setKeepAlive(true)
                            .setTcpNoDelay(true),
                    new PoolOptions().setHttp1MaxSize(2));
            LongFunction<PoolSnapshot> snapshot = now -> pool.snapshot(affinity::sessionsOn, cluster::peerInFlight, now);
            InFlightTracker inFlight = new InFlightTracker();
            Placer placer = new Placer(policy, prefixIndexes);
            Reservations reservations = new Reservations(placer, pool, prefixIndexes, prefillRates);
            reservations.listen(accounting);
            AdmissionRules admissionSettings = AdmissionRules.of(config.admission(), config.simulation().timeScale());
            AdmissionController admission = new AdmissionController(admissionSettings, placer, snapshot, policy, affinity, prefixIndexes,
                    DEFAULT_KV_CAPACITY_TOKENS, metrics.admissionObserver(), System::nanoTime, cluster.peerResidents());
            // Admission hears how each attempt ended after placement's own learning and the accounting.
            reservations.listen(admission.feedback());
            metrics.gaugeAdmission(admission);
            pool.onUnavailable(admission::forgetReplica);
            reservations.listen(RequestLog.to(requestLines, config.logging().json()));
            metrics.countRequestLogDrops(requestLines);
            ProxyContext ctx = new ProxyContext(vertx, client, pool, snapshot, reservations, admission, metrics,
                    config.upstream().streamIdleTimeout(), inFlight, config.upstream().maxConnectionsPerReplica(),
                    config.upstream().connectTimeout().plus(config.upstream().replicaQueueTimeout()),
                    new RetryBudget(config.upstream().retryAttempts(), config.upstream().retryBudget()));
            ClientConnections connections = new ClientConnections(vertx, config.server().maxClientConnections(), config.server().clientIdleTimeout());
            AdminAuth auth = new AdminAuth(config.server().adminToken());
            AdminApi admin = new AdminApi(pool, snapshot, policy, admission, affinity, sessions, accounting, metrics, inFlight,
                    auth, discovery.describe(), tokenRates, workingSets, cluster, history);
            boolean ownAdminPort = config.server().adminPort().isPresent();

            Map<String, String> allowed = new LinkedHashMap<>();
            Router router = Router.router(vertx);
            router.route().handler(rc -> {
                rc.put(RouterTimestamps.RECEIVED_AT_NANOS, System.nanoTime());
                HttpConnection conn = rc.request().connection();
                connections.requestStarted(conn);
                rc.addEndHandler(v -> connections.requestEnded(conn));
                ClientErrors.bodyDeadline(rc, config.server().bodyTimeout());
            });
            router.route().method(HttpMethod.POST).method(HttpMethod.PUT).handler(ClientErrors::refuseEncodedBody);
            BodyHandler body = BodyHandler.create(false).setBodyLimit(config.server().bodyLimitBytes());
            ProxyHandler proxy = new ProxyHandler(ctx,
                    new RequestFactsReader(new SessionKeyResolver(new ConversationLineages(KEYLESS_PROMPTS_REMEMBERED))),
                    new TenantResolver(config.tenants().header(), config.tenants().fromApiKey(),
                            Optional.of(TenantSecret.resolve(config.tenants().secret(), cluster).value())));
            PassThrough passThrough = new PassThrough(ctx);
            for (ApiFlavor flavor : ApiFlavor.values()) {
                allowed.put(flavor.path(), "POST");
                if (flavor.placed()) {
                    router.post(flavor.path()).handler(body).handler(rc -> proxy.handle(rc, flavor))
                            .failureHandler(rc -> failure(rc, flavor, config));
                } else {
                    router.post(flavor.path()).handler(body).handler(rc -> passThrough.handle(rc, flavor))
                            .failureHandler(rc -> failure(rc, flavor, config));
                }
            }
            router.route("/v1/models").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(passThrough::handle);
            allowed.put("/v1/models", "GET, HEAD");
            router.post("/tokenize").handler(body).handler(passThrough::handle);
            allowed.put("/tokenize", "POST");
            for (String probe : List.of("/healthz", "/readyz", "/metrics")) {
                allowed.put(probe, "GET, HEAD");
            }
            admin.mountProbes(router);
            Router adminRouter = ownAdminPort ? Router.router(vertx) : router;
            if (ownAdminPort) {
                admin.mountProbes(adminRouter);
            }
            adminRouter.put("/api/policy").handler(BodyHandler.create(false).setBodyLimit(64 * 1024));
            admin.mountAdmin(adminRouter);
            WebUi.mount(adminRouter);
            allowed.put("/api/policy", "GET, HEAD, PUT");
            allowed.put("/api/", "GET, HEAD");
            ClientErrors errors = new ClientErrors(allowed);
            for (Router r : ownAdminPort ? List.of(router, adminRouter) : List.of(router)) {
                r.errorHandler(404, errors::notFound);
                r.errorHandler(405, errors::methodNotAllowed);
            }

            discovery.start(pool::apply);
            EngineMetricsScraper scraper = new EngineMetricsScraper(vertx, checks, pool, config.discovery().scrapeInterval(), config.discovery().healthTimeout());
            scraper.start();
            // Sweeps often enough that a clustered pin in use is rewritten well before it would expire.
            long sweepMs = Math.max(1, Math.min(AFFINITY_SWEEP_MS, config.placement().sessionIdleTimeout().toMillis() / 4));
            vertx.setPeriodic(sweepMs, id -> affinity.expireIdle(System.nanoTime()));
            vertx.setPeriodic(loadReportPeriodMillis(config.simulation().timeScale()), id -> cluster.publish(ownLoad(pool, admission, affinity)));
            vertx.setPeriodic(pumpPeriodMillis(admissionSettings), id -> admission.pump());
            history.sample(System.currentTimeMillis(), pool.all());
            vertx.setPeriodic(HISTORY_SAMPLE_MS, id -> history.sample(System.currentTimeMillis(), pool.all()));

            HttpServer server = vertx.createHttpServer(new HttpServerOptions()
                            .setPort(config.server().port()).setHost(config.server().host()).setTcpNoDelay(true).setCompressionSupported(false)
                            // HTTP/1.1 only: with h2c on, Vert.x builds a connection only once its first request's head is in,
                            // out of reach of the connection cap and the header deadline.
                            .setHttp2ClearTextEnabled(false)
                            // Nothing read or written for this long closes the socket: idle or half-sent requests alike.
                            .setIdleTimeout((int) config.server().clientIdleTimeout().toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS))
                    .connectionHandler(c -> {
                        if (connections.accepted(c)) {
                            HeaderDeadline.install(c, config.server().headerTimeout());
                        }
                    })
                    .invalidRequestHandler(ClientErrors::invalidRequest)
                    .requestHandler(router);
            await(server.listen());
            HttpServer adminServer = null;
            if (ownAdminPort) {
                adminServer = vertx.createHttpServer(new HttpServerOptions()
                                .setPort(config.server().adminPort().getAsInt()).setHost(config.server().host()).setHttp2ClearTextEnabled(false)
                                .setIdleTimeout((int) config.server().clientIdleTimeout().toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS))
                        .connectionHandler(c -> HeaderDeadline.install(c, config.server().headerTimeout()))
                        .invalidRequestHandler(ClientErrors::invalidRequest)
                        .requestHandler(adminRouter);
                await(adminServer.listen());
            }
            HttpServer adminListening = adminServer;
            LogFields.info(LOG, "router listening", "port", server.actualPort(),
                    "adminPort", adminListening == null ? "" : adminListening.actualPort(), "discovery", discovery.describe(),
                    "policy", policy.get().name(), "transport", transportName(vertx), "version", BuildVersion.of(RouterRuntime.class));
            return new RouterRuntime(config, vertx, discovery, scraper, List.of(client, checks), server, adminServer, inFlight,
                    metrics, cluster, requestLines);
        } catch (RuntimeException e) {
            requestLines.close();
            vertx.close();
            cluster.close();
            throw e;
        }
    }

    /** What carries the sockets: "epoll", or "nio" (asked for, or epoll not available here). */
    static String transportName(Vertx vertx) {
        return vertx.isNativeTransportEnabled() ? "epoll" : "nio";
    }

    /** This router's own share of the load, for its peers: its in-flight requests and its residents' KV blocks per replica. */
    private static LoadReport ownLoad(ReplicaPool pool, AdmissionController admission, SessionPins pins) {
        Map<String, Integer> inFlight = new HashMap<>();
        pool.all().forEach(r -> inFlight.put(r.id(), r.inFlight()));
        Map<String, Long> blocks = new HashMap<>();
        admission.residentLoads().forEach((replica, load) -> blocks.put(replica, load.usedBlocks()));
        return new LoadReport(inFlight, blocks, pins.size(), 0, admission.residents());
    }

    /** The load report period on the wall clock: as stale, in engine time, at every time scale (like the scrape). */
    static long loadReportPeriodMillis(double timeScale) {
        return Math.max(5, Math.round(LOAD_REPORT_MS / timeScale));
    }

    /** Often enough that residency expiry and queue timeouts are late by at most a twentieth of their length. */
    static long pumpPeriodMillis(AdmissionRules s) {
        long shortest = Math.min(s.residencyIdleNanos(), Math.min(s.queueTimeoutNanos(), s.keepAliveNanos()));
        return Math.max(5, Math.min(250, shortest / 20 / 1_000_000));
    }

    private static void failure(RoutingContext rc, ApiFlavor flavor, RouterConfig config) {
        int status = rc.statusCode() > 0 ? rc.statusCode() : 500;
        String message = status == 413
                ? "request body exceeds the router's limit of " + config.server().bodyLimitBytes() + " bytes (bodyLimit)"
                : "router error: " + (rc.failure() == null ? "status " + status : rc.failure().getMessage());
        if (!rc.response().headWritten()) {
            rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(flavor, status, message));
        }
    }

    int port() {
        return server.actualPort();
    }

    /** The admin API's port: its own when {@code adminPort} is set, else the inference port. */
    int adminPort() {
        return adminServer == null ? server.actualPort() : adminServer.actualPort();
    }

    /** Stops accepting, lets in-flight streams finish up to the grace period, then stops everything. */
    void close() {
        long graceMs = config.server().shutdownGrace().toMillis();
        Future<Void> shutdown = server.shutdown(graceMs, TimeUnit.MILLISECONDS);
        try {
            inFlight.whenDrained().get(graceMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LogFields.warn(LOG, "shutdown grace over", "inFlight", inFlight.active());
        } catch (Exception e) {
            LogFields.warn(LOG, "shutdown wait interrupted", "cause", e);
        }
        try {
            await(shutdown);
        } catch (RuntimeException e) {
            LOG.fine(() -> "server shutdown: " + e);
        }
        scraper.close();
        discovery.close();
        cluster.close();
        if (adminServer != null) {
            await(adminServer.close());
        }
        clients.forEach(c -> await(c.close()));
        await(vertx.close());
        // After the last request ended: its line is out before the shutdown's own lines.
        requestLines.close();
        metrics.close();
    }

    private static <T> T await(Future<T> f) {
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
