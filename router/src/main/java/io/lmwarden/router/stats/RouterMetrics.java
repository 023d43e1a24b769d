package io.lmwarden.router.stats;

import io.lmwarden.router.placement.SessionPins;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.AdmissionObserver;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** The router's Prometheus meters; every one is documented in router/README.md. */
public final class RouterMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaPool pool;
    private final SessionPins affinity;
    private final MultiGauge inFlight;
    private final MultiGauge sticky;
    /** Meters by name and tag values: built once, so the request path does a map lookup only. */
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private DistributionSummary overhead;
    private MultiGauge resident;
    private AdmissionController admission;
    private Timer queueWait;

    public RouterMetrics(ReplicaPool pool, SessionPins affinity) {
        this.pool = pool;
        this.affinity = affinity;
        this.inFlight = MultiGauge.builder("lmw_in_flight_requests")
                .description("Requests the router has in flight to each replica").register(registry);
        this.sticky = MultiGauge.builder("lmw_sticky_sessions")
                .description("Sessions the affinity table pins to each replica").register(registry);
        this.overhead = DistributionSummary.builder("lmw_router_overhead_seconds").description("Router receive to upstream request sent")
                .baseUnit("seconds").publishPercentileHistogram().register(registry);
        Gauge.builder("lmw_affinity_entries", affinity, SessionPins::size)
                .description("Entries in the affinity table").register(registry);
    }

    private Counter counter(String name, String description, String... tags) {
        return counters.computeIfAbsent(name + String.join("\u0001", tags),
                k -> Counter.builder(name).description(description).tags(tags).register(registry));
    }

    /** Gauges read from the admission controller: queue length and resident sessions per replica. */
    public void gaugeAdmission(AdmissionController controller) {
        this.admission = controller;
        Gauge.builder("lmw_queue_length", controller, AdmissionController::queueLength)
                .description("Requests waiting in the router's admission queue").register(registry);
        resident = MultiGauge.builder("lmw_resident_sessions")
                .description("Sessions resident on each replica (their working sets count against its KV budget)").register(registry);
    }

    /** What admission reports: queue waits and rejections (each reason from 0). */
    public AdmissionObserver admissionObserver() {
        queueWait = Timer.builder("lmw_queue_wait_seconds").description("Time a request waited in the admission queue before it was admitted")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(15))
                .register(registry);
        for (String reason : new String[] {"queue_full", "queue_timeout", "client_gone"}) {
            admissionRejected(reason, 0);
        }
        return new AdmissionObserver() {
            @Override
            public void admittedAfterWait(long waitedNanos) {
                queueWait.record(waitedNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void rejected(String reason) {
                admissionRejected(reason, 1);
            }
        };
    }

    private void admissionRejected(String reason, double amount) {
        counter("lmw_admission_rejected_total", "Requests admission turned away (queue_full, queue_timeout) or that left the queue (client_gone)",
                "reason", reason).increment(amount);
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
        if (admission != null) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            var loads = admission.residentLoads();
            for (ReplicaState r : pool.all()) {
                var l = loads.get(r.id());
                rows.add(MultiGauge.Row.of(Tags.of("replica", r.id()), l == null ? 0 : l.residentSessions()));
            }
            resident.register(rows, true);
        }
    }

    public void request(String replica, String decision, String api) {
        counter("lmw_requests_total", "Requests placed, by replica, decision and API", "replica", replica, "decision", decision, "api", api).increment();
    }

    public void sessionKeySource(String source) {
        counter("lmw_session_key_source_total", "Requests by where their session key came from", "source", source).increment();
    }

    public void spill(String fromReplica, String toReplica) {
        counter("lmw_spills_total", "Steps moved off their home replica over the spill threshold", "from", fromReplica, "to", toReplica).increment();
    }

    public void staleMetricsFallback(String replica) {
        counter("lmw_stale_metrics_fallbacks_total",
                "Placements that used the router's own in-flight count because the replica's engine metrics were stale",
                "replica", replica).increment();
    }

    public void retry(String failedReplica) {
        counter("lmw_retries_total", "Requests retried on another replica before any byte was sent", "failed_replica", failedReplica).increment();
    }

    public void error(String kind) {
        counter("lmw_request_errors_total", "Requests that ended in an error, by kind", "kind", kind).increment();
    }

    public void streamEnded(String replica, boolean completed) {
        counter("lmw_streams_total", "Proxied responses by whether they completed (completion marker seen)", "replica", replica, "completed", Boolean.toString(completed)).increment();
    }

    public void ttfb(String replica, double millis) {
        timers.computeIfAbsent(replica, r -> Timer.builder("lmw_ttfb_seconds").description("Router receive to first response byte from the replica")
                        .tags("replica", r).publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(300))
                        .register(registry))
                .record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    public void promptTokens(String replica, long cached, long computed) {
        counter("lmw_prompt_tokens_total", "Prompt tokens by replica, cached (reported by the engine) or computed", "replica", replica, "kind", "cached").increment(cached);
        counter("lmw_prompt_tokens_total", "Prompt tokens by replica, cached (reported by the engine) or computed", "replica", replica, "kind", "computed").increment(computed);
    }

    public void outputTokens(String replica, long tokens) {
        counter("lmw_output_tokens_total", "Output tokens reported by the engines", "replica", replica).increment(tokens);
    }

    public void routerOverhead(double millis) {
        overhead.record(millis / 1000.0);
    }

    public void prefixBreak(String segment) {
        counter("lmw_prefix_breaks_total",
                "Steps whose prompt changed before the end of the previous step's prompt, by segment (system, tools, message)",
                "segment", segment).increment();
    }

    public void cacheMiss(String replica) {
        counter("lmw_cache_misses_total", "Requests whose engine reported under half of the cached tokens the router expected on that replica", "replica", replica).increment();
    }

    public void queueAteGain(String replica) {
        counter("lmw_queue_ate_gain_total", "Requests that waited in the engine's queue longer than the prefill their cached tokens saved", "replica", replica).increment();
    }

    public String scrape() {
        refreshGauges();
        return registry.scrape();
    }
}
