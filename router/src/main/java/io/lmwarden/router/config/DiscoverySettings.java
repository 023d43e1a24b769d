package io.lmwarden.router.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Where the replicas come from (one source of three) and how they are watched. */
public record DiscoverySettings(
        List<String> replicas,
        Optional<String> k8sService,
        Optional<String> namespace,
        int simulate,
        Duration scrapeInterval,
        Duration metricsStaleAfter,
        Duration healthTimeout) {

    public static final Setting<List<String>> REPLICAS = Setting.list("replicas",
            "static replica base URLs, comma separated (http://host:port, id=http://host:port; #ranks=N after one: a vllm serve "
                    + "--data-parallel-size N server)");
    public static final Setting<Optional<String>> K8S_SERVICE = Setting.optionalText("k8sService",
            "discover replicas from the EndpointSlices of this Kubernetes Service");
    public static final Setting<Optional<String>> NAMESPACE = Setting.optionalText("namespace",
            "namespace of that Service (default: the pod's own, from its service account)");
    public static final Setting<Integer> SIMULATE = Setting.integer("simulate", 0,
            "start N simulated vLLM replicas in-process and route to them").atLeast(0);
    public static final Setting<Duration> SCRAPE_INTERVAL = Setting.duration("scrapeInterval", "500ms",
            "how often each replica's /metrics is scraped");
    public static final Setting<Duration> METRICS_STALE_AFTER = Setting.duration("metricsStaleAfter", "3s",
            "engine metrics older than this are ignored; the router's own in-flight counts place requests");
    public static final Setting<Duration> HEALTH_TIMEOUT = Setting.duration("healthTimeout", "1s",
            "a replica whose /health does not answer within this leaves rotation (health checks have their own connections)");

    public DiscoverySettings {
        replicas = List.copyOf(replicas);
        int sources = (replicas.isEmpty() ? 0 : 1) + (k8sService.isPresent() ? 1 : 0) + (simulate > 0 ? 1 : 0);
        if (sources > 1) {
            throw new IllegalArgumentException("choose one replica source: --replicas, --k8s-service or --simulate");
        }
    }
}
