package io.lmwarden.router.stats;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.AdmissionObserver;
import io.lmwarden.router.placement.admission.WaitCause;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.session.SessionKeySource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;

import java.time.Duration;
import java.util.Optional;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The router's Prometheus meters; every one is documented in router/README.md.
 *
 * <p>Counters whose label values are known in advance exist at 0 from the start, and the per-replica
 * ones from the moment a replica is discovered ({@link #replicaDiscovered}): Prometheus's
 * {@code rate()} and {@code increase()} cannot see the first increment of a series that appears
 * with it, so a counter born at 1 reads as 0.
 */
public final class RouterMetrics implements AutoCloseable {

    /** Every kind {@link #error} is called with; README's metric table lists the same. */
    public static final List<String> ERROR_KINDS = List.of(
            "bad_request", "no_replica", "bad_pin", "connect", "send", "upstream_503", "midstream_drop", "idle_timeout");
    /** The segments {@link #prefixBreak} is called with. */
    public static final List<String> PREFIX_BREAK_SEGMENTS = List.of("system", "tools", "message");

    /**
     * Time to first byte spans a few ms (a warm prefix on an idle engine) to minutes (a long prefill
     * behind a queue): 14 buckets per replica instead of the ~70 a percentile histogram publishes.
     */
    private static final Duration[] TTFB_BUCKETS = seconds(0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300);
    /** The router's own time is sub-millisecond to a few ms; beyond 1 s something is wrong, not slow. */
    private static final Duration[] OVERHEAD_BUCKETS = seconds(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
            0.05, 0.1, 0.25, 1);

    private static final String REQUESTS = "Requests placed, by replica and decision";
    private static final String REQUESTS_BY_API = "Requests placed, by API";
    private static final String SESSION_KEY_SOURCES = "Requests by where their session key came from";
    private static final String SPILLS = "Steps moved off their home replica, by pair (a series appears with its pair's first spill)";
    private static final String SPILLS_OUT = "Steps moved off this replica, their home";
    private static final String SPILLS_IN = "Steps moved onto this replica from their home";
    private static final String STALE = "Placements that used the router's own in-flight count because the replica's engine metrics were stale";
    private static final String RETRIES = "Requests retried on another replica before any byte was sent";
    private static final String ERRORS = "Requests that ended in an error, by kind";
    private static final String STREAMS = "Proxied responses by whether they completed (completion marker seen)";
    private static final String PROMPT_TOKENS = "Prompt tokens by replica, cached (reported by the engine) or computed";
    private static final String OUTPUT_TOKENS = "Output tokens reported by the engines";
    private static final String PREFIX_BREAKS = "Steps whose prompt changed before the end of the previous step's prompt, by segment (system, tools, message)";
    private static final String CACHE_MISSES = "Requests whose engine reported under half of the cached tokens the router expected on that replica";
    private static final String QUEUE_ATE_GAIN = "Requests that waited in the engine's queue longer than the prefill their cached tokens saved";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaPool pool;
    private final SessionPins affinity;
    private final MultiGauge inFlight;
    private final MultiGauge sticky;
    private final MultiGauge ready;
    private final MultiGauge draining;
    private final HostTierGauges hostTiers;
    private final JvmGcMetrics gc = new JvmGcMetrics();
    /** Meters by name and tag values: built once, so the request path does a map lookup only. */
    private final Map<MeterKey, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> ttfb = new ConcurrentHashMap<>();
    private final Timer overhead;
    private MultiGauge resident;
    private MultiGauge residentTokens;
    private MultiGauge budgetTokens;
    private AdmissionController admission;
    private Timer queueWait;

    public RouterMetrics(ReplicaPool pool, SessionPins affinity, String version) {
        this(pool, affinity, version, Optional.empty());
    }

    /** {@code deployment}: the ModelDeployment the router serves, a tag on every meter when present (autoscalers select by it). */
    public RouterMetrics(ReplicaPool pool, SessionPins affinity, String version, Optional<String> deployment) {
        this.pool = pool;
        this.affinity = affinity;
        // Before any meter exists: common tags apply to the meters registered after them.
        deployment.filter(d -> !d.isBlank()).ifPresent(d -> registry.config().commonTags("deployment", d));
        // Both break Prometheus's naming rules (promtool check metrics): an abbreviated unit, a "_count" gauge.
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")
                || id.getName().equals("system.cpu.count")));
        this.inFlight = MultiGauge.builder("lmw_in_flight_requests")
                .description("Requests the router has in flight to each replica").register(registry);
        this.sticky = MultiGauge.builder("lmw_sticky_sessions")
                .description("Sessions the affinity table pins to each replica").register(registry);
        this.ready = MultiGauge.builder("lmw_replica_ready")
                .description("1 while the replica takes new sessions: discovered ready, health checks passing and not draining; else 0")
                .register(registry);
        this.draining = MultiGauge.builder("lmw_replica_draining")
                .description("1 while the replica drains (terminating endpoint or an operator's drain): no new sessions, "
                        + "its requests finish; 2 once nothing is in flight there (drained); 0 otherwise").register(registry);
        this.hostTiers = new HostTierGauges(registry);
        this.overhead = Timer.builder("lmw_router_overhead_seconds").description("Router receive to upstream request sent")
                .serviceLevelObjectives(OVERHEAD_BUCKETS).register(registry);
        Gauge.builder("lmw_affinity_entries", affinity, SessionPins::size)
                .description("Entries in the affinity table").register(registry);
        // An Info metric of the Prometheus client itself: Micrometer would strip the "_info" suffix of a gauge.
        // Not a Micrometer meter: the deployment tag is added by hand.
        String javaVersion = System.getProperty("java.version", "unknown");
        Optional<String> tagged = deployment.filter(d -> !d.isBlank());
        Info info = Info.builder().name("lmw_build_info").help("Always 1; the labels say which build runs")
                .labelNames(tagged.isPresent() ? new String[] {"version", "java_version", "deployment"} : new String[] {"version", "java_version"})
                .register(registry.getPrometheusRegistry());
        if (tagged.isPresent()) {
            info.addLabelValues(version, javaVersion, tagged.get());
        } else {
            info.addLabelValues(version, javaVersion);
        }
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        for (String kind : ERROR_KINDS) {
            errors(kind);
        }
        for (String segment : PREFIX_BREAK_SEGMENTS) {
            prefixBreaks(segment);
        }
        for (SessionKeySource s : SessionKeySource.values()) {
            sessionKeySources(s.label());
        }
        for (ApiDialect api : ApiDialect.values()) {
            requestsByApi(api.path());
        }
    }

    private static final Duration[] QUEUE_WAIT_BUCKETS = seconds(0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 180, 300, 600);
    /**
     * Realised / forecast wait in percent, finest near 100, where ±30 % is the forecast's goal. Percent, not a ratio: a
     * summary's histogram counts a value in the bucket of its ceiling as a whole number, which would put 0.3 and 0.9 both
     * at 1.
     */
    private static final double[] FORECAST_PERCENT_BUCKETS = {25, 50, 60, 70, 80, 90, 100, 110, 125, 143, 167, 200, 400};
    /** How a queued newcomer's forecast was settled: the {@code outcome} tag of the forecast's histograms. */
    private static final String[] FORECAST_OUTCOMES = {"admitted", "timed_out"};

    private static Duration[] seconds(double... values) {
        Duration[] d = new Duration[values.length];
        for (int i = 0; i < values.length; i++) {
            d[i] = Duration.ofNanos(Math.round(values[i] * 1e9));
        }
        return d;
    }

    private Counter counter(String name, String description, String... tags) {
        return counters.computeIfAbsent(new MeterKey(name, tags),
                k -> Counter.builder(name).description(description).tags(tags).register(registry));
    }

    /** A meter's name and tag pairs as the cache key: looking a meter up builds no string (several per request otherwise). */
    private record MeterKey(String name, String[] tags) {
        @Override
        public boolean equals(Object o) {
            return o instanceof MeterKey k && name.equals(k.name) && Arrays.equals(tags, k.tags);
        }

        @Override
        public int hashCode() {
            return 31 * name.hashCode() + Arrays.hashCode(tags);
        }

        @Override
        public String toString() {
            return name + Arrays.toString(tags);
        }
    }

    /** Request-log lines dropped because stderr did not take them fast enough (the log never holds up a request). */
    public void countRequestLogDrops(LineWriter lines) {
        FunctionCounter.builder("lmw_request_log_dropped_lines", lines, LineWriter::dropped)
                .description("Request-log lines dropped because stderr did not take them as fast as requests ended").register(registry);
    }

    /** Gauges read from the admission controller: queue length and resident sessions per replica. */
    public void gaugeAdmission(AdmissionController controller) {
        this.admission = controller;
        Gauge.builder("lmw_admission_engaged", controller, c -> c.engaged() ? 1 : 0)
                .description("1 while the KV budget applies (admission engaged: the pool thrashes and holding residents pays; in a "
                        + "cluster of routers, on the evidence of all), else 0").register(registry);
        Gauge.builder("lmw_queue_length", controller, AdmissionController::queueLength)
                .description("Requests waiting in the router's admission queue").register(registry);
        Gauge.builder("lmw_queue_oldest_wait_seconds", controller, AdmissionController::oldestWaitSeconds)
                .description("How long the oldest request in the admission queue has waited, in seconds (0 when none waits)").register(registry);
        Gauge.builder("lmw_kv_budget_used_ratio", controller, c -> c.budgetUsedRatio(pool.snapshot(affinity::sessionsOn, System.nanoTime())))
                .description("Share of the KV budget of the replicas taking new work that resident sessions hold, 0..1").register(registry);
        resident = MultiGauge.builder("lmw_resident_sessions")
                .description("Sessions resident on each replica (their working sets count against its KV budget)").register(registry);
        residentTokens = MultiGauge.builder("lmw_resident_tokens")
                .description("Working sets of the sessions resident on each replica, in tokens (whole KV blocks)").register(registry);
        budgetTokens = MultiGauge.builder("lmw_kv_budget_tokens")
                .description("KV budget admission gives each replica, in tokens: its KV capacity times kvBudget").register(registry);
    }

    /** What admission reports: queue waits and rejections (each reason from 0). */
    public AdmissionObserver admissionObserver() {
        queueWait = Timer.builder("lmw_queue_wait_seconds").description("Time a request waited in the admission queue before it was admitted")
                // Seconds-scale buckets up to past the default queue timeout (5 m), as few as the TTFB histogram's.
                .serviceLevelObjectives(QUEUE_WAIT_BUCKETS).register(registry);
        for (String reason : new String[] {"queue_full", "queue_timeout", "client_gone"}) {
            admissionRejected(reason, 0);
        }
        for (WaitCause cause : WaitCause.values()) {
            for (boolean inProgress : new boolean[] {true, false}) {
                waitCause(cause.label(), inProgress, 0);
            }
        }
        Map<String, Timer> predicted = new TreeMap<>();
        Map<String, Timer> realised = new TreeMap<>();
        Map<String, DistributionSummary> ratio = new TreeMap<>();
        for (String outcome : FORECAST_OUTCOMES) {
            predicted.put(outcome, Timer.builder("lmw_queue_forecast_predicted_seconds")
                    .description("A queued newcomer's forecast wait (corrected by the forecast's recent error), by outcome")
                    .tags("outcome", outcome).serviceLevelObjectives(QUEUE_WAIT_BUCKETS).register(registry));
            realised.put(outcome, Timer.builder("lmw_queue_forecast_realised_seconds")
                    .description("A queued newcomer's realised wait, by outcome (timed_out: the queue timeout, a lower bound)")
                    .tags("outcome", outcome).serviceLevelObjectives(QUEUE_WAIT_BUCKETS).register(registry));
            ratio.put(outcome, DistributionSummary.builder("lmw_queue_forecast_ratio_percent")
                    .description("A queued newcomer's realised wait in percent of its forecast, by outcome (timed_out: a lower bound)")
                    .tags("outcome", outcome).scale(100).serviceLevelObjectives(FORECAST_PERCENT_BUCKETS).register(registry));
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

            @Override
            public void waitedBehind(String cause, boolean inProgress, long nanos) {
                waitCause(cause, inProgress, nanos / 1e9);
            }

            @Override
            public void forecastSettled(long predictedNanos, long realisedNanos, boolean timedOut) {
                String outcome = FORECAST_OUTCOMES[timedOut ? 1 : 0];
                predicted.get(outcome).record(predictedNanos, TimeUnit.NANOSECONDS);
                realised.get(outcome).record(realisedNanos, TimeUnit.NANOSECONDS);
                ratio.get(outcome).record((double) realisedNanos / predictedNanos);
            }
        };
    }

    private void waitCause(String cause, boolean inProgress, double seconds) {
        counter("lmw_queue_wait_cause_seconds_total", "Seconds queued steps waited in the admission queue, by what they waited "
                + "behind (docs/admission.md, \"Where the tail comes from\") and lane (in_progress, newcomer)",
                "cause", cause, "lane", inProgress ? "in_progress" : "newcomer").increment(seconds);
    }

    private void admissionRejected(String reason, double amount) {
        counter("lmw_admission_rejected_total", "Requests admission turned away (queue_full, queue_timeout) or that left the queue (client_gone)",
                "reason", reason).increment(amount);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Creates at 0 every series a replica can have, so its first request, spill or error is a visible
     * increase. Not the spill pairs: N×(N−1) of them would be most of the router's series at 32
     * replicas, so a pair appears with its first spill and rates read the born-at-0 totals per replica.
     */
    public void replicaDiscovered(String replica) {
        for (Decision d : Decision.values()) {
            requests(replica, d.name());
        }
        spillsOut(replica);
        spillsIn(replica);
        staleMetricsFallbacks(replica);
        retries(replica);
        streams(replica, true);
        streams(replica, false);
        promptTokens(replica, "cached");
        promptTokens(replica, "computed");
        outputTokens(replica);
        cacheMisses(replica);
        queueAteGains(replica);
        ttfbTimer(replica);
    }

    /** Refreshes the per-replica gauges; called before each scrape of /metrics. */
    public void refreshGauges() {
        List<MultiGauge.Row<?>> flight = new ArrayList<>();
        List<MultiGauge.Row<?>> pinned = new ArrayList<>();
        List<MultiGauge.Row<?>> up = new ArrayList<>();
        List<MultiGauge.Row<?>> drains = new ArrayList<>();
        for (ReplicaState r : pool.all()) {
            Tags replica = Tags.of("replica", r.id());
            flight.add(MultiGauge.Row.of(replica, r.inFlight()));
            pinned.add(MultiGauge.Row.of(replica, affinity.sessionsOn(r.id())));
        }
        // The snapshot's readiness is placement's: a draining replica is up but takes nothing new, as /api/replicas says.
        List<ReplicaView> views = pool.snapshot(affinity::sessionsOn, System.nanoTime()).replicas();
        for (ReplicaView r : views) {
            Tags replica = Tags.of("replica", r.id());
            up.add(MultiGauge.Row.of(replica, r.ready() ? 1 : 0));
            drains.add(MultiGauge.Row.of(replica, switch (r.drain()) {
                case NONE -> 0;
                case DRAINING -> 1;
                case DRAINED -> 2;
            }));
        }
        inFlight.register(flight, true);
        sticky.register(pinned, true);
        ready.register(up, true);
        draining.register(drains, true);
        hostTiers.refresh(pool.all());
        if (admission != null) {
            List<MultiGauge.Row<?>> sessions = new ArrayList<>();
            List<MultiGauge.Row<?>> tokens = new ArrayList<>();
            List<MultiGauge.Row<?>> budgets = new ArrayList<>();
            var loads = admission.residentLoads();
            for (ReplicaView r : views) {
                Tags replica = Tags.of("replica", r.id());
                var l = loads.get(r.id());
                sessions.add(MultiGauge.Row.of(replica, l == null ? 0 : l.residentSessions()));
                tokens.add(MultiGauge.Row.of(replica, l == null ? 0 : l.usedBlocks() * PrefixIndexes.TOKENS_PER_BLOCK));
                budgets.add(MultiGauge.Row.of(replica, admission.budgetTokens(r)));
            }
            resident.register(sessions, true);
            residentTokens.register(tokens, true);
            budgetTokens.register(budgets, true);
        }
    }

    public void request(String replica, String decision, String api) {
        requests(replica, decision).increment();
        requestsByApi(api).increment();
    }

    private Counter requests(String replica, String decision) {
        return counter("lmw_requests_total", REQUESTS, "replica", replica, "decision", decision);
    }

    private Counter requestsByApi(String api) {
        return counter("lmw_requests_by_api_total", REQUESTS_BY_API, "api", api);
    }

    public void sessionKeySource(String source) {
        sessionKeySources(source).increment();
    }

    private Counter sessionKeySources(String source) {
        return counter("lmw_session_key_source_total", SESSION_KEY_SOURCES, "source", source);
    }

    public void spill(String fromReplica, String toReplica) {
        spills(fromReplica, toReplica).increment();
        spillsOut(fromReplica).increment();
        spillsIn(toReplica).increment();
    }

    private Counter spills(String fromReplica, String toReplica) {
        return counter("lmw_spills_total", SPILLS, "from", fromReplica, "to", toReplica);
    }

    private Counter spillsOut(String replica) {
        return counter("lmw_spills_out_total", SPILLS_OUT, "replica", replica);
    }

    private Counter spillsIn(String replica) {
        return counter("lmw_spills_in_total", SPILLS_IN, "replica", replica);
    }

    /** Spills since the router started: from replica → (to replica → count), from the pair counters. */
    public Map<String, Map<String, Long>> spillPairs() {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        for (Counter c : registry.find("lmw_spills_total").counters()) {
            out.computeIfAbsent(c.getId().getTag("from"), k -> new TreeMap<>())
                    .put(c.getId().getTag("to"), (long) c.count());
        }
        return out;
    }

    public void staleMetricsFallback(String replica) {
        staleMetricsFallbacks(replica).increment();
    }

    private Counter staleMetricsFallbacks(String replica) {
        return counter("lmw_stale_metrics_fallbacks_total", STALE, "replica", replica);
    }

    public void retry(String failedReplica) {
        retries(failedReplica).increment();
    }

    private Counter retries(String failedReplica) {
        return counter("lmw_retries_total", RETRIES, "failed_replica", failedReplica);
    }

    public void error(String kind) {
        errors(kind).increment();
    }

    private Counter errors(String kind) {
        return counter("lmw_request_errors_total", ERRORS, "kind", kind);
    }

    public void streamEnded(String replica, boolean completed) {
        streams(replica, completed).increment();
    }

    private Counter streams(String replica, boolean completed) {
        return counter("lmw_streams_total", STREAMS, "replica", replica, "completed", Boolean.toString(completed));
    }

    public void ttfb(String replica, double millis) {
        ttfbTimer(replica).record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    private Timer ttfbTimer(String replica) {
        return ttfb.computeIfAbsent(replica, r -> Timer.builder("lmw_ttfb_seconds")
                .description("Router receive to first response byte from the replica")
                .tags("replica", r).serviceLevelObjectives(TTFB_BUCKETS).register(registry));
    }

    public void promptTokens(String replica, long cached, long computed) {
        promptTokens(replica, "cached").increment(cached);
        promptTokens(replica, "computed").increment(computed);
    }

    private Counter promptTokens(String replica, String kind) {
        return counter("lmw_prompt_tokens_total", PROMPT_TOKENS, "replica", replica, "kind", kind);
    }

    public void outputTokens(String replica, long tokens) {
        outputTokens(replica).increment(tokens);
    }

    private Counter outputTokens(String replica) {
        return counter("lmw_output_tokens_total", OUTPUT_TOKENS, "replica", replica);
    }

    public void routerOverhead(double millis) {
        overhead.record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    public void prefixBreak(String segment) {
        prefixBreaks(segment).increment();
    }

    private Counter prefixBreaks(String segment) {
        return counter("lmw_prefix_breaks_total", PREFIX_BREAKS, "segment", segment);
    }

    public void cacheMiss(String replica) {
        cacheMisses(replica).increment();
    }

    private Counter cacheMisses(String replica) {
        return counter("lmw_cache_misses_total", CACHE_MISSES, "replica", replica);
    }

    public void queueAteGain(String replica) {
        queueAteGains(replica).increment();
    }

    private Counter queueAteGains(String replica) {
        return counter("lmw_queue_ate_gain_total", QUEUE_ATE_GAIN, "replica", replica);
    }

    public String scrape() {
        refreshGauges();
        return registry.scrape();
    }

    /** Unhooks the GC listener from the JVM's memory beans (a router started and stopped in a test JVM must not leak it). */
    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
