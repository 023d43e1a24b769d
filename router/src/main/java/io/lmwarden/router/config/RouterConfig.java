package io.lmwarden.router.config;


import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** The router's settings, resolved from flags, environment, YAML file and defaults (in that order). */
public record RouterConfig(
        int port,
        String host,
        List<String> replicas,
        Optional<String> k8sService,
        Optional<String> namespace,
        int simulate,
        String simProfile,
        String simModel,
        double timeScale,
        String policy,
        SpillThreshold spillThreshold,
        boolean affinity,
        int maxNumSeqs,
        double prefillMsPerToken,
        boolean admission,
        double kvBudget,
        Duration residencyIdle,
        Duration residencySlice,
        int queueMax,
        Duration queueTimeout,
        Duration queueKeepAlive,
        Duration sessionIdleTimeout,
        int affinityMaxEntries,
        Duration scrapeInterval,
        Duration metricsStaleAfter,
        long bodyLimitBytes,
        Duration connectTimeout,
        Duration streamIdleTimeout,
        Duration shutdownGrace,
        int maxConnectionsPerReplica,
        Duration replicaQueueTimeout,
        Duration healthTimeout,
        int maxClientConnections,
        Duration bodyTimeout,
        Duration clientIdleTimeout,
        Duration headerTimeout,
        int retryAttempts,
        Duration retryBudget,
        OptionalInt adminPort,
        Optional<String> adminToken,
        Optional<String> tenantHeader,
        boolean tenantFromApiKey,
        Optional<String> tenantSecret,
        String logFormat,
        String transport,
        ClusterSettings cluster) {

    public RouterConfig {
        replicas = List.copyOf(replicas);
        if (!TRANSPORTS.contains(transport)) {
            throw new IllegalArgumentException("transport must be native or nio, got '" + transport + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        if (simulate < 0) {
            throw new IllegalArgumentException("simulate must be >= 0, got " + simulate);
        }
        if (timeScale <= 0) {
            throw new IllegalArgumentException("timeScale must be > 0, got " + timeScale);
        }
        if (maxNumSeqs < 1) {
            throw new IllegalArgumentException("maxNumSeqs must be >= 1, got " + maxNumSeqs);
        }
        if (prefillMsPerToken <= 0) {
            throw new IllegalArgumentException("prefillMsPerToken must be > 0, got " + prefillMsPerToken);
        }
        if (!(kvBudget > 0) || kvBudget > 4) {
            throw new IllegalArgumentException("kvBudget must be a share of the KV capacity in (0, 4], got " + kvBudget);
        }
        if (queueMax < 0) {
            throw new IllegalArgumentException("queueMax must be >= 0, got " + queueMax);
        }
        for (Duration d : List.of(residencyIdle, residencySlice, queueTimeout, queueKeepAlive)) {
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException("residencyIdle, residencySlice, queueTimeout and queueKeepAlive must be > 0");
            }
        }
        if (affinityMaxEntries < 1) {
            throw new IllegalArgumentException("affinityMaxEntries must be >= 1, got " + affinityMaxEntries);
        }
        if (maxConnectionsPerReplica < 1) {
            throw new IllegalArgumentException("maxConnectionsPerReplica must be >= 1, got " + maxConnectionsPerReplica);
        }
        if (maxClientConnections < 1) {
            throw new IllegalArgumentException("maxClientConnections must be >= 1, got " + maxClientConnections);
        }
        if (headerTimeout.isZero() || headerTimeout.isNegative()) {
            throw new IllegalArgumentException("headerTimeout must be > 0, got " + headerTimeout);
        }
        if (retryAttempts < 1) {
            throw new IllegalArgumentException("retryAttempts must be >= 1 (1 = no retry), got " + retryAttempts);
        }
        if (retryBudget.isNegative()) {
            throw new IllegalArgumentException("retryBudget must be >= 0, got " + retryBudget);
        }
        if (adminPort.isPresent() && (adminPort.getAsInt() < 0 || adminPort.getAsInt() > 65535)) {
            throw new IllegalArgumentException("adminPort must be 0..65535, got " + adminPort.getAsInt());
        }
        int sources = (replicas.isEmpty() ? 0 : 1) + (k8sService.isPresent() ? 1 : 0) + (simulate > 0 ? 1 : 0);
        if (sources > 1) {
            throw new IllegalArgumentException("choose one replica source: --replicas, --k8s-service or --simulate");
        }
    }

    /** {@code native}: epoll on Linux when its library loads, else NIO; {@code nio}: always Java NIO. */
    public static final List<String> TRANSPORTS = List.of("native", "nio");

    /** All defaults: no replica source yet. */
    public static RouterConfig defaults() {
        return ConfigResolver.resolve(java.util.Map.of(), java.util.Map.of(), java.util.Map.of());
    }

    /** Defaults routing to the given replica URLs on a free port: what tests and the bench start. */
    public static RouterConfig forReplicas(List<String> urls) {
        return defaults().withPort(0).withReplicas(urls);
    }

    /** Seconds as the engines count them, converted to the router's wall clock (a simulator may run faster). */
    public double engineSecondsToWall(double engineSeconds) {
        return engineSeconds / timeScale;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    public RouterConfig withPort(int value) {
        Builder b = toBuilder();
        b.port = value;
        return b.build();
    }

    public RouterConfig withHost(String value) {
        Builder b = toBuilder();
        b.host = value;
        return b.build();
    }

    /** How many simulated replicas to start; 0 once they are started and listed as {@link #replicas()}. */
    public RouterConfig withSimulate(int value) {
        Builder b = toBuilder();
        b.simulate = value;
        return b.build();
    }

    public RouterConfig withReplicas(List<String> value) {
        Builder b = toBuilder();
        b.replicas = value;
        return b.build();
    }

    public RouterConfig withTimeScale(double value) {
        Builder b = toBuilder();
        b.timeScale = value;
        return b.build();
    }

    public RouterConfig withPolicy(String value) {
        Builder b = toBuilder();
        b.policy = value;
        return b.build();
    }

    public RouterConfig withSpillThreshold(SpillThreshold value) {
        Builder b = toBuilder();
        b.spillThreshold = value;
        return b.build();
    }

    public RouterConfig withAffinity(boolean value) {
        Builder b = toBuilder();
        b.affinity = value;
        return b.build();
    }

    public RouterConfig withMaxNumSeqs(int value) {
        Builder b = toBuilder();
        b.maxNumSeqs = value;
        return b.build();
    }

    public RouterConfig withPrefillMsPerToken(double value) {
        Builder b = toBuilder();
        b.prefillMsPerToken = value;
        return b.build();
    }

    public RouterConfig withAdmission(boolean value) {
        Builder b = toBuilder();
        b.admission = value;
        return b.build();
    }

    public RouterConfig withResidencyIdle(Duration value) {
        Builder b = toBuilder();
        b.residencyIdle = value;
        return b.build();
    }

    public RouterConfig withQueueTimeout(Duration value) {
        Builder b = toBuilder();
        b.queueTimeout = value;
        return b.build();
    }

    public RouterConfig withQueueMax(int value) {
        Builder b = toBuilder();
        b.queueMax = value;
        return b.build();
    }

    public RouterConfig withQueueKeepAlive(Duration value) {
        Builder b = toBuilder();
        b.queueKeepAlive = value;
        return b.build();
    }

    public RouterConfig withKvBudget(double value) {
        Builder b = toBuilder();
        b.kvBudget = value;
        return b.build();
    }

    public RouterConfig withSessionIdleTimeout(Duration value) {
        Builder b = toBuilder();
        b.sessionIdleTimeout = value;
        return b.build();
    }

    public RouterConfig withScrapeInterval(Duration value) {
        Builder b = toBuilder();
        b.scrapeInterval = value;
        return b.build();
    }

    public RouterConfig withMetricsStaleAfter(Duration value) {
        Builder b = toBuilder();
        b.metricsStaleAfter = value;
        return b.build();
    }

    public RouterConfig withBodyLimitBytes(long value) {
        Builder b = toBuilder();
        b.bodyLimitBytes = value;
        return b.build();
    }

    public RouterConfig withStreamIdleTimeout(Duration value) {
        Builder b = toBuilder();
        b.streamIdleTimeout = value;
        return b.build();
    }

    public RouterConfig withAdminToken(String token) {
        Builder b = toBuilder();
        b.adminToken = Optional.ofNullable(token).filter(t -> !t.isBlank());
        return b.build();
    }

    public RouterConfig withCluster(ClusterSettings value) {
        Builder b = toBuilder();
        b.cluster = value;
        return b.build();
    }

    public RouterConfig withAdminPort(int value) {
        Builder b = toBuilder();
        b.adminPort = OptionalInt.of(value);
        return b.build();
    }

    public RouterConfig withTenantHeader(String value) {
        Builder b = toBuilder();
        b.tenantHeader = Optional.ofNullable(value).filter(t -> !t.isBlank());
        return b.build();
    }

    public RouterConfig withTenantSecret(String value) {
        Builder b = toBuilder();
        b.tenantSecret = Optional.ofNullable(value).filter(t -> !t.isBlank());
        return b.build();
    }

    public RouterConfig withClientTimeouts(Duration body, Duration idle) {
        Builder b = toBuilder();
        b.bodyTimeout = body;
        b.clientIdleTimeout = idle;
        return b.build();
    }

    public RouterConfig withHeaderTimeout(Duration value) {
        Builder b = toBuilder();
        b.headerTimeout = value;
        return b.build();
    }

    /** How often, and for how long after its first attempt, a request that reached no client byte yet is tried again. */
    public RouterConfig withRetries(int attempts, Duration budget) {
        Builder b = toBuilder();
        b.retryAttempts = attempts;
        b.retryBudget = budget;
        return b.build();
    }

    public RouterConfig withMaxClientConnections(int value) {
        Builder b = toBuilder();
        b.maxClientConnections = value;
        return b.build();
    }

    public RouterConfig withReplicaConnectionCap(int max, Duration queueTimeout) {
        Builder b = toBuilder();
        b.maxConnectionsPerReplica = max;
        b.replicaQueueTimeout = queueTimeout;
        return b.build();
    }

    public RouterConfig withTransport(String value) {
        Builder b = toBuilder();
        b.transport = value;
        return b.build();
    }

    public RouterConfig withLogFormat(String value) {
        Builder b = toBuilder();
        b.logFormat = value;
        return b.build();
    }

    /** A copy with some settings changed; {@link #build} validates again. */
    public static final class Builder {
        int port;
        String host;
        List<String> replicas;
        Optional<String> k8sService;
        Optional<String> namespace;
        int simulate;
        String simProfile;
        String simModel;
        double timeScale;
        String policy;
        SpillThreshold spillThreshold;
        boolean affinity;
        int maxNumSeqs;
        double prefillMsPerToken;
        boolean admission;
        double kvBudget;
        Duration residencyIdle;
        Duration residencySlice;
        int queueMax;
        Duration queueTimeout;
        Duration queueKeepAlive;
        Duration sessionIdleTimeout;
        int affinityMaxEntries;
        Duration scrapeInterval;
        Duration metricsStaleAfter;
        long bodyLimitBytes;
        Duration connectTimeout;
        Duration streamIdleTimeout;
        Duration shutdownGrace;
        int maxConnectionsPerReplica;
        Duration replicaQueueTimeout;
        Duration healthTimeout;
        int maxClientConnections;
        Duration bodyTimeout;
        Duration clientIdleTimeout;
        Duration headerTimeout;
        int retryAttempts;
        Duration retryBudget;
        OptionalInt adminPort;
        Optional<String> adminToken;
        Optional<String> tenantHeader;
        boolean tenantFromApiKey;
        Optional<String> tenantSecret;
        String logFormat;
        String transport;
        ClusterSettings cluster;

        private Builder(RouterConfig c) {
            port = c.port;
            host = c.host;
            replicas = c.replicas;
            k8sService = c.k8sService;
            namespace = c.namespace;
            simulate = c.simulate;
            simProfile = c.simProfile;
            simModel = c.simModel;
            timeScale = c.timeScale;
            policy = c.policy;
            spillThreshold = c.spillThreshold;
            affinity = c.affinity;
            maxNumSeqs = c.maxNumSeqs;
            prefillMsPerToken = c.prefillMsPerToken;
            admission = c.admission;
            kvBudget = c.kvBudget;
            residencyIdle = c.residencyIdle;
            residencySlice = c.residencySlice;
            queueMax = c.queueMax;
            queueTimeout = c.queueTimeout;
            queueKeepAlive = c.queueKeepAlive;
            sessionIdleTimeout = c.sessionIdleTimeout;
            affinityMaxEntries = c.affinityMaxEntries;
            scrapeInterval = c.scrapeInterval;
            metricsStaleAfter = c.metricsStaleAfter;
            bodyLimitBytes = c.bodyLimitBytes;
            connectTimeout = c.connectTimeout;
            streamIdleTimeout = c.streamIdleTimeout;
            shutdownGrace = c.shutdownGrace;
            maxConnectionsPerReplica = c.maxConnectionsPerReplica;
            replicaQueueTimeout = c.replicaQueueTimeout;
            healthTimeout = c.healthTimeout;
            maxClientConnections = c.maxClientConnections;
            bodyTimeout = c.bodyTimeout;
            clientIdleTimeout = c.clientIdleTimeout;
            headerTimeout = c.headerTimeout;
            retryAttempts = c.retryAttempts;
            retryBudget = c.retryBudget;
            adminPort = c.adminPort;
            adminToken = c.adminToken;
            tenantHeader = c.tenantHeader;
            tenantFromApiKey = c.tenantFromApiKey;
            tenantSecret = c.tenantSecret;

            logFormat = c.logFormat;
            transport = c.transport;
            cluster = c.cluster;
        }

        public RouterConfig build() {
            return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy, spillThreshold, affinity, maxNumSeqs, prefillMsPerToken, admission, kvBudget, residencyIdle, residencySlice, queueMax, queueTimeout, queueKeepAlive, sessionIdleTimeout, affinityMaxEntries, scrapeInterval, metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, maxConnectionsPerReplica, replicaQueueTimeout, healthTimeout, maxClientConnections, bodyTimeout, clientIdleTimeout, headerTimeout, retryAttempts, retryBudget, adminPort, adminToken, tenantHeader, tenantFromApiKey, tenantSecret, logFormat, transport, cluster);
        }
    }
}
