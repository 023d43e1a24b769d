package io.lmwarden.router.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

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
        Duration sessionIdleTimeout,
        int affinityMaxEntries,
        Duration scrapeInterval,
        Duration metricsStaleAfter,
        long bodyLimitBytes,
        Duration connectTimeout,
        Duration streamIdleTimeout,
        Duration shutdownGrace,
        Optional<String> adminToken,
        String logFormat) {

    public RouterConfig {
        replicas = List.copyOf(replicas);
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
        if (affinityMaxEntries < 1) {
            throw new IllegalArgumentException("affinityMaxEntries must be >= 1, got " + affinityMaxEntries);
        }
        int sources = (replicas.isEmpty() ? 0 : 1) + (k8sService.isPresent() ? 1 : 0) + (simulate > 0 ? 1 : 0);
        if (sources > 1) {
            throw new IllegalArgumentException("choose one replica source: --replicas, --k8s-service or --simulate");
        }
    }

    /** All defaults: no replica source yet. */
    public static RouterConfig defaults() {
        return ConfigResolver.resolve(java.util.Map.of(), java.util.Map.of(), java.util.Map.of());
    }

    /** Defaults routing to the given replica URLs on a free port: what tests and the bench start. */
    public static RouterConfig forReplicas(List<String> urls) {
        return defaults().withPort(0).withReplicas(urls);
    }

    public RouterConfig withPort(int p) {
        return new RouterConfig(p, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withHost(String h) {
        return new RouterConfig(port, h, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withReplicas(List<String> urls) {
        return new RouterConfig(port, host, urls, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withPolicy(String p) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, p,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withSpillThreshold(SpillThreshold s) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                s, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withTimeScale(double k) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, k, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withScrapeInterval(Duration d) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, d,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withStreamIdleTimeout(Duration d) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, d, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withAdminToken(String token) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace,
                Optional.ofNullable(token).filter(t -> !t.isBlank()), logFormat);
    }

    public RouterConfig withBodyLimitBytes(long bytes) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, sessionIdleTimeout, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }

    public RouterConfig withSessionIdleTimeout(Duration d) {
        return new RouterConfig(port, host, replicas, k8sService, namespace, simulate, simProfile, simModel, timeScale, policy,
                spillThreshold, affinity, maxNumSeqs, d, affinityMaxEntries, scrapeInterval,
                metricsStaleAfter, bodyLimitBytes, connectTimeout, streamIdleTimeout, shutdownGrace, adminToken, logFormat);
    }
}
