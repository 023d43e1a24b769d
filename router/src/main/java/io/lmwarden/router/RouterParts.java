package io.lmwarden.router;

import io.lmwarden.router.cacheview.CacheViewMeters;
import io.lmwarden.router.cacheview.KvEventFollower;

import io.lmwarden.common.build.BuildVersion;
import io.lmwarden.router.advisor.StepTrace;
import io.lmwarden.router.advisor.TierAdvisor;
import io.lmwarden.router.advisor.TierAdvisorGauge;
import io.lmwarden.router.cluster.RouterCluster;
import io.lmwarden.router.config.CacheViewSettings;
import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.kvevents.KvEventsSettings;
import io.lmwarden.router.placement.prefix.HeldTokens;
import io.lmwarden.router.placement.prefix.TokenKeyDictionary;
import io.lmwarden.router.placement.reservation.TokenKeyLearning;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.diagnostics.LiveWorkingSets;
import io.lmwarden.router.diagnostics.PrefixBreakDetector;
import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.policy.PolicyFactory;
import io.lmwarden.router.placement.policy.PolicyHolder;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.reservation.Reservations;
import io.lmwarden.router.placement.lora.AdapterActivity;
import io.lmwarden.router.placement.lora.AdapterLoader;
import io.lmwarden.router.placement.lora.AdapterPlacement;
import io.lmwarden.router.placement.lora.LoraSlots;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.prefix.TtftEstimator;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.AdmissionRules;
import io.lmwarden.router.placement.admission.ClusterShare;
import io.lmwarden.router.placement.reservation.AttemptEnd;
import io.lmwarden.router.placement.reservation.PlacementFeedback;
import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.pool.EndpointSliceDiscovery;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaDiscovery;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.StaticReplicaDiscovery;
import io.lmwarden.router.proxy.InFlightTracker;
import io.lmwarden.router.stats.LineWriter;
import io.lmwarden.router.stats.ReplicaHistory;
import io.lmwarden.router.stats.RequestAccounting;
import io.lmwarden.router.stats.RequestLog;
import io.lmwarden.router.stats.RouterMetrics;
import io.lmwarden.router.stats.SessionLog;

import java.time.Duration;
import java.util.function.LongFunction;

/**
 * The router's domain objects, built and connected, without Vert.x: the replicas (pool and discovery), placement
 * (policy, placer, reservations, admission) and what watches them (metrics, session log, diagnostics). The order in
 * which listeners hear of events is stated once, in {@link #connect}.
 */
final class RouterParts {

    /** Placement and what it learns. */
    record Placing(PrefixIndexes prefixIndexes, PrefillRates prefillRates, SessionHomes homes, PolicyHolder policy,
                   Reservations reservations, AdmissionController admission, AdapterActivity adapters,
                   LoraSlots loraSlots, AdapterLoader adapterLoader) {
    }

    /** The engines' own cache views (KV events), the token keys learned for them, and the query placement asks. */
    record CacheViews(EngineCacheViews views, KvEventFollower follower, TokenKeyDictionary tokenKeys, HeldTokens held) {
    }

    /** What counts and explains: meters, the session log, the UI's history and the diagnostics. */
    record Watching(RouterMetrics metrics, SessionLog sessions, ReplicaHistory history, TokenRates tokenRates,
                    LiveWorkingSets workingSets, RequestAccounting accounting) {
    }

    /** The host-tier advisor: the steps it replays, the replay, and its gauge. */
    record Advising(StepTrace trace, TierAdvisor advisor, TierAdvisorGauge gauge) {
    }

    final ReplicaDiscovery discovery;
    final ReplicaPool pool;
    final RouterCluster cluster;
    final LongFunction<PoolSnapshot> snapshot;
    final Placing placing;
    final Watching watching;
    final CacheViews cacheViews;
    final Advising advising;
    final InFlightTracker inFlight = new InFlightTracker();

    private RouterParts(ReplicaDiscovery discovery, ReplicaPool pool, RouterCluster cluster, LongFunction<PoolSnapshot> snapshot,
                        Placing placing, Watching watching, CacheViews cacheViews, Advising advising) {
        this.cacheViews = cacheViews;
        this.advising = advising;
        this.discovery = discovery;
        this.pool = pool;
        this.cluster = cluster;
        this.snapshot = snapshot;
        this.placing = placing;
        this.watching = watching;
    }

    static RouterParts build(RouterConfig config, RouterTuning tuning, RouterCluster cluster, LineWriter requestLines) {
        ReplicaPool pool = new ReplicaPool(config.discovery().metricsStaleAfter(), config.kvEvents().enabled());
        SessionPins pins = cluster.pins();
        // A replica's in-flight count is this router's plus its peers'.
        LongFunction<PoolSnapshot> snapshot = now -> pool.snapshot(pins::sessionsOn, cluster::peerInFlight, now);
        double timeScale = config.simulation().timeScale();
        PrefixIndexes prefixIndexes = new PrefixIndexes(PrefixIndexes.DEFAULT_KV_CAPACITY_TOKENS);
        // The prior is in engine time; a simulator running K times faster prefills K times faster.
        PrefillRates prefillRates = new PrefillRates(config.placement().prefillMsPerToken() / timeScale);
        Watching watching = watching(pool, pins, prefillRates, tuning.activeWindowWorkload(), timeScale, config.logging().deployment());
        CacheViews cacheViews = cacheViews(config.kvEvents(), pool, prefixIndexes);
        TtftEstimator estimator = new TtftEstimator(cacheViews.held(), prefillRates, config.placement().maxNumSeqs(),
                TtftEstimator.TYPICAL_DECODE_ENGINE_MS / timeScale, timeScale);
        // An agent's tool pause is workload time: a simulator K times faster bridges 1/K of it on the wall clock.
        AdapterActivity adapters = new AdapterActivity(pool::isAdapter, (long) (AdapterActivity.WINDOW_WORKLOAD.toNanos() / timeScale));
        LoraSlots loraSlots = new LoraSlots(config.placement().maxLoras());
        AdapterLoader adapterLoader = new AdapterLoader(config.placement().loadAdapters(), pool::servedModelsChanged);
        SessionHomes homes = new SessionHomes(pins, new AdapterPlacement(adapters, pool::isAdapter, loraSlots,
                config.placement().adapterPlacement(), adapterLoader, pool::loraCard));
        PolicyHolder policy = new PolicyHolder(new PolicyFactory(homes, config.placement().maxNumSeqs(), estimator, timeScale),
                config.placement().startPolicy(), config.placement().spillThreshold());
        Placer placer = new Placer(policy, cacheViews.held());
        Reservations reservations = new Reservations(pool, prefixIndexes, prefillRates);
        AdmissionController admission = new AdmissionController(AdmissionRules.of(config.admission(), timeScale), placer, snapshot,
                policy, homes, cacheViews.held(), prefillRates, PrefixIndexes.DEFAULT_KV_CAPACITY_TOKENS, watching.metrics().admissionObserver(),
                System::nanoTime, new ClusterShare(cluster.peerResidents(), cluster.sessionFacts(), cluster.peerEvidence()));
        RouterParts parts = new RouterParts(discovery(config.discovery()), pool, cluster, snapshot,
                new Placing(prefixIndexes, prefillRates, homes, policy, reservations, admission, adapters, loraSlots, adapterLoader), watching, cacheViews,
                advising(pool, watching.metrics(), timeScale));
        parts.connect(RequestLog.to(requestLines, config.logging().json()), requestLines);
        return parts;
    }

    /** Token keys: 4M block keys at most (32 MB), enough for 64 sessions of 100k tokens at block 16 many times over. */
    static final long TOKEN_KEYS_KEPT = 4_000_000;

    private static CacheViews cacheViews(CacheViewSettings s, ReplicaPool pool, PrefixIndexes prefixIndexes) {
        EngineCacheViews views = s.enabled()
                ? EngineCacheViews.start(KvEventsSettings.of(s))
                : EngineCacheViews.off();
        TokenKeyDictionary tokenKeys = new TokenKeyDictionary(TOKEN_KEYS_KEPT);
        return new CacheViews(views, new KvEventFollower(views, pool, prefixIndexes, s.topic()), tokenKeys,
                new HeldTokens(prefixIndexes, tokenKeys, views));
    }

    /** The advisor replays the last half hour of workload time: a simulator K times faster gets 1/K of it on the wall clock. */
    private static Advising advising(ReplicaPool pool, RouterMetrics metrics, double timeScale) {
        StepTrace trace = new StepTrace(StepTrace.BLOCKS_PER_KEY,
                Duration.ofNanos((long) (StepTrace.WINDOW_WORKLOAD.toNanos() / timeScale)), StepTrace.KEYS_KEPT);
        return new Advising(trace, new TierAdvisor(trace, pool::all, PrefixIndexes.DEFAULT_KV_CAPACITY_TOKENS, timeScale),
                new TierAdvisorGauge(metrics.registry()));
    }

    private static ReplicaDiscovery discovery(DiscoverySettings s) {
        return s.k8sService().isPresent() ? new EndpointSliceDiscovery(s.k8sService().get(), s.namespace())
                : new StaticReplicaDiscovery(s.replicas());
    }

    private static Watching watching(ReplicaPool pool, SessionPins pins, PrefillRates prefillRates, Duration activeWindowWorkload,
                                     double timeScale, java.util.Optional<String> deployment) {
        RouterMetrics metrics = new RouterMetrics(pool, pins, BuildVersion.of(RouterParts.class), deployment);
        SessionLog sessions = new SessionLog(SessionLog.SESSIONS_LOGGED, SessionLog.STEPS_LOGGED_PER_SESSION);
        TokenRates tokenRates = new TokenRates();
        // Active means a step within the window of workload time: a simulator K times faster gets 1/K of it.
        LiveWorkingSets workingSets = new LiveWorkingSets(Duration.ofNanos((long) (activeWindowWorkload.toNanos() / timeScale)),
                LiveWorkingSets.SESSIONS_KEPT);
        RequestAccounting accounting = new RequestAccounting(metrics, sessions, new PrefixBreakDetector(PrefixBreakDetector.SESSIONS_KEPT),
                prefillRates, tokenRates, workingSets);
        return new Watching(metrics, sessions, new ReplicaHistory(), tokenRates, workingSets, accounting);
    }

    /** Who hears what, and in which order. */
    private void connect(RequestLog requestLog, LineWriter requestLines) {
        RouterMetrics metrics = watching.metrics();
        AdmissionController admission = placing.admission();
        // Replicas coming and going: the meters learn of a replica first; one that leaves (or stops being ready) takes
        // what the prefix index believes it holds, the sessions homed there and its residents with it.
        pool.onAdded(metrics::replicaDiscovered);
        pool.onUnavailable(placing.prefixIndexes()::forget);
        pool.onUnavailable(placing.homes()::releaseReplica);
        pool.onUnavailable(admission::forgetReplica);
        pool.onUnavailable(placing.adapters()::forget);
        // A replica that drains keeps its prefix index and its pins (each session leaves at its next step, as DRAIN),
        // but its residents leave the KV ledger at once: wherever they go next, they are admitted afresh.
        pool.onDraining(admission::forgetReplica);
        cluster.watchDrains(pool::operatorDrains);
        // Each attempt's placed → accepted → ended. Placement's own learning listens first (inside Reservations: the
        // prefix index, the prefill rates), so that everything after it reads the updated state; then the accounting;
        // the request log last. Admission is no listener: every attempt passes it, and it hears of the request's end
        // once, from the exchange, after the attempt's listeners.
        placing.reservations().listen(new PlacementFeedback() {
            // Admission learns what each step cost and whether it found its own prefix: attained service, thrash evidence.
            @Override
            public void ended(Reservation r, AttemptEnd end) {
                if (end.ok()) {
                    admission.served(r.facts(), r.placement().replica().id(), end.promptTokens(), end.cachedTokens(), end.outputTokens());
                }
            }
        });
        placing.reservations().listen(placing.adapters());
        placing.reservations().listen(new TokenKeyLearning(cacheViews.tokenKeys(), cacheViews.views(), cacheViews.held(), pool::isAdapter));
        placing.reservations().listen(watching.accounting());
        placing.reservations().listen(advising.trace());
        placing.reservations().listen(requestLog);
        metrics.gaugeAdmission(admission);
        cacheViews.follower().meter(new CacheViewMeters(metrics.registry(), cacheViews.views()));
        metrics.countRequestLogDrops(requestLines);
    }

    SessionPins pins() {
        return cluster.pins();
    }
}
