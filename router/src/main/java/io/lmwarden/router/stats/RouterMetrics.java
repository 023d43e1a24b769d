package io.lmwarden.router.stats;

import io.lmwarden.router.placement.AffinityTable;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The router's Prometheus meters; every one is documented in router/README.md. */
public final class RouterMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaPool pool;
    private final AffinityTable affinity;
    private final MultiGauge inFlight;
    private final MultiGauge sticky;

    public RouterMetrics(ReplicaPool pool, AffinityTable affinity) {
        this.pool = pool;
        this.affinity = affinity;
        this.inFlight = MultiGauge.builder("lmw_in_flight_requests")
                .description("Requests the router has in flight to each replica").register(registry);
        this.sticky = MultiGauge.builder("lmw_sticky_sessions")
                .description("Sessions the affinity table pins to each replica").register(registry);
        Gauge.builder("lmw_affinity_entries", affinity, AffinityTable::size)
                .description("Entries in the affinity table").register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Refreshes the per-replica gauges; called before each scrape of /metrics. */
    public void refreshGauges() {
        List<MultiGauge.Row<?>> flight = new ArrayList<>();
        List<MultiGauge.Row<?>> pinned = new ArrayList<>();
        for (ReplicaState r : pool.all()) {
            flight.add(MultiGauge.Row.of(Tags.of("replica", r.id()), r.inFlight()));
            pinned.add(MultiGauge.Row.of(Tags.of("replica", r.id()), affinity.sessionsOn(r.id())));
        }
        inFlight.register(flight, true);
        sticky.register(pinned, true);
    }

    public void request(String replica, String decision, String api) {
        Counter.builder("lmw_requests_total").description("Requests placed, by replica, decision and API")
                .tags("replica", replica, "decision", decision, "api", api).register(registry).increment();
    }

    public void sessionKeySource(String source) {
        Counter.builder("lmw_session_key_source_total").description("Requests by where their session key came from")
                .tags("source", source).register(registry).increment();
    }

    public void spill(String fromReplica, String toReplica) {
        Counter.builder("lmw_spills_total").description("Steps moved off their home replica over the spill threshold")
                .tags("from", fromReplica, "to", toReplica).register(registry).increment();
    }

    public void staleMetricsFallback(String replica) {
        Counter.builder("lmw_stale_metrics_fallbacks_total")
                .description("Placements that used the router's own in-flight count because the replica's engine metrics were stale")
                .tags("replica", replica).register(registry).increment();
    }

    public void retry(String failedReplica) {
        Counter.builder("lmw_retries_total").description("Requests retried on another replica before any byte was sent")
                .tags("failed_replica", failedReplica).register(registry).increment();
    }

    public void error(String kind) {
        Counter.builder("lmw_request_errors_total").description("Requests that ended in an error, by kind")
                .tags("kind", kind).register(registry).increment();
    }

    public void streamEnded(String replica, boolean completed) {
        Counter.builder("lmw_streams_total").description("Proxied responses by whether they completed (completion marker seen)")
                .tags("replica", replica, "completed", Boolean.toString(completed)).register(registry).increment();
    }

    public void ttfb(String replica, double millis) {
        Timer.builder("lmw_ttfb_seconds").description("Router receive to first response byte from the replica")
                .tags("replica", replica).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(300))
                .register(registry).record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    public void promptTokens(String replica, long cached, long computed) {
        Counter.builder("lmw_prompt_tokens_total").description("Prompt tokens by replica, cached (reported by the engine) or computed")
                .tags("replica", replica, "kind", "cached").register(registry).increment(cached);
        Counter.builder("lmw_prompt_tokens_total").description("Prompt tokens by replica, cached (reported by the engine) or computed")
                .tags("replica", replica, "kind", "computed").register(registry).increment(computed);
    }

    public void outputTokens(String replica, long tokens) {
        Counter.builder("lmw_output_tokens_total").description("Output tokens reported by the engines")
                .tags("replica", replica).register(registry).increment(tokens);
    }

    public void routerOverhead(double millis) {
        DistributionSummary.builder("lmw_router_overhead_seconds").description("Router receive to upstream request sent")
                .baseUnit("seconds").publishPercentileHistogram().register(registry).record(millis / 1000.0);
    }

    public void prefixBreak(String segment) {
        Counter.builder("lmw_prefix_breaks_total")
                .description("Steps whose prompt changed before the end of the previous step's prompt, by segment (system, tools, message)")
                .tags("segment", segment).register(registry).increment();
    }

    public void cacheMiss(String replica) {
        Counter.builder("lmw_cache_misses_total")
                .description("Requests whose engine reported under half of the cached tokens the router expected on that replica")
                .tags("replica", replica).register(registry).increment();
    }

    public void queueAteGain(String replica) {
        Counter.builder("lmw_queue_ate_gain_total")
                .description("Requests that waited in the engine's queue longer than the prefill their cached tokens saved")
                .tags("replica", replica).register(registry).increment();
    }

    public String scrape() {
        refreshGauges();
        return registry.scrape();
    }
}
