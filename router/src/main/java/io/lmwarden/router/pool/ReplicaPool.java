package io.lmwarden.router.pool;

import io.lmwarden.common.logging.LogFields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.logging.Logger;

/**
 * The set of replicas and their live state; applies discovery changes and scrapes, and hands out snapshots.
 * A replica is an endpoint of its own, or one engine rank of an endpoint that serves several
 * ({@code vllm serve --data-parallel-size N}: replicas {@code <endpoint>/rank-0..N-1}). Health and readiness
 * belong to the endpoint: when it fails, all its ranks do.
 */
public final class ReplicaPool {

    private static final Logger LOG = Logger.getLogger(ReplicaPool.class.getName());

    /** A metrics label the endpoint's names lack sends the router to {@code /v1/models} again, at most this often. */
    private static final long SERVED_MODELS_LABEL_RECHECK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    /** Endpoint order, then rank order: X-data-parallel-rank k of a client names the k-th replica. */
    private static final Comparator<ReplicaView> SNAPSHOT_ORDER = Comparator.comparing(ReplicaView::endpointId)
            .thenComparingInt(ReplicaView::rank);

    private final Map<String, EndpointState> endpoints = new ConcurrentHashMap<>();
    private final Map<String, ReplicaState> replicas = new ConcurrentHashMap<>();
    private final long staleAfterNanos;
    private final List<Consumer<String>> removalListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> additionListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> drainListeners = new CopyOnWriteArrayList<>();
    /** The replicas operators drain ({@code POST /api/replicas/{id}/drain}), as this router's cluster shares them. */
    private volatile Set<String> operatorDrains = Set.of();
    /** Each served name's model key (see {@link ModelKeys}), rebuilt whenever an endpoint's list changes. */
    private volatile Map<String, String> modelKeys = Map.of();
    /** The names some endpoint lists as a LoRA adapter (a cache identity of their own), rebuilt with {@link #modelKeys}. */
    private volatile Set<String> adapterNames = Set.of();
    /** Each adapter's card (parent, root), rebuilt with {@link #modelKeys}. */
    private volatile Map<String, ServedModels.LoraCard> loraCards = Map.of();

    private final boolean kvEventsFollowed;
    private final EngineVersionWarnings engineWarnings = new EngineVersionWarnings();

    public ReplicaPool(Duration metricsStaleAfter) {
        this(metricsStaleAfter, false);
    }

    /** {@code kvEventsFollowed}: the router follows the KV events of replicas that publish them (the kvEvents setting). */
    public ReplicaPool(Duration metricsStaleAfter, boolean kvEventsFollowed) {
        this.staleAfterNanos = metricsStaleAfter.toNanos();
        this.kvEventsFollowed = kvEventsFollowed;
    }

    /** Called with a replica id when it leaves the pool or stops being ready. */
    public void onUnavailable(Consumer<String> listener) {
        removalListeners.add(listener);
    }

    /**
     * Called with a replica id when it starts to drain (its endpoint terminates, or an operator drains it): it takes no
     * new work from now on, while its requests in flight finish.
     */
    public void onDraining(Consumer<String> listener) {
        drainListeners.add(listener);
    }

    /** Called with a replica id when it first joins the pool (an endpoint of its own, or one engine rank of one). */
    public void onAdded(Consumer<String> listener) {
        additionListeners.add(listener);
    }

    /** Applies the whole current set of endpoints from discovery. */
    public synchronized void apply(List<DiscoveredReplica> discovered) {
        Set<String> seen = new HashSet<>();
        for (DiscoveredReplica d : discovered) {
            seen.add(d.id());
            EndpointState existing = endpoints.get(d.id());
            if (existing == null) {
                EndpointState e = new EndpointState(d);
                endpoints.put(d.id(), e);
                LogFields.info(LOG, "endpoint added", "endpoint", d.id(), "url", d.url(), "ready", d.ready(), "ranks", d.ranks());
                syncReplicas(e);
            } else {
                boolean wasServing = existing.discoveredReady();
                boolean wasReady = wasServing && !existing.discoveredDraining();
                existing.update(d);
                syncReplicas(existing);
                if (wasReady != d.ready()) {
                    LogFields.info(LOG, d.ready() ? "endpoint ready" : d.draining() ? "endpoint draining" : "endpoint not ready",
                            "endpoint", d.id());
                }
                if (wasServing != d.serving()) {
                    if (!d.serving()) {
                        replicasOf(d.id()).forEach(r -> removalListeners.forEach(l -> l.accept(r.id())));
                    }
                }
            }
        }
        for (String id : new ArrayList<>(endpoints.keySet())) {
            if (!seen.contains(id)) {
                EndpointState gone = endpoints.remove(id);
                LogFields.info(LOG, "endpoint removed", "endpoint", id);
                for (ReplicaState r : replicasOf(id)) {
                    remove(r.id());
                }
                if (gone.servedModels().known()) {
                    rebuildModelKeys();
                }
            }
        }
    }

    /**
     * What an endpoint's {@code /v1/models} answered: the names all its engine ranks serve. Logged when it changes.
     */
    public synchronized void recordServedModels(String endpointId, ServedModels served) {
        EndpointState e = endpoints.get(endpointId);
        if (e == null) {
            return;
        }
        ServedModels before = e.servedModels();
        e.servedModels(served);
        if (!before.equals(served)) {
            LogFields.info(LOG, "endpoint serves models", "endpoint", endpointId, "names", String.join(",", served.names()));
            rebuildModelKeys();
        }
    }

    private void rebuildModelKeys() {
        List<ServedModels> known = endpoints.values().stream().sorted(Comparator.comparing(EndpointState::id))
                .map(EndpointState::servedModels).filter(ServedModels::known).toList();
        modelKeys = ModelKeys.of(known);
        adapterNames = known.stream().flatMap(s -> s.adapters().stream()).collect(java.util.stream.Collectors.toUnmodifiableSet());
        Map<String, ServedModels.LoraCard> cards = new java.util.HashMap<>();
        known.forEach(s -> s.loraCards().forEach(cards::putIfAbsent));
        loraCards = Map.copyOf(cards);
    }

    /** The adapter's card as the first endpoint (in id order) that lists it gives it: what loading it elsewhere needs. */
    public java.util.Optional<ServedModels.LoraCard> loraCard(String adapter) {
        return java.util.Optional.ofNullable(loraCards.get(adapter));
    }

    /** The endpoint's names may have changed (the router loaded an adapter there): its {@code /v1/models} is asked at its next check. */
    public void servedModelsChanged(String endpointId) {
        EndpointState e = endpoints.get(endpointId);
        if (e != null) {
            e.servedModelsStale();
        }
    }

    /**
     * Whether some endpoint lists {@code name} as a LoRA adapter: its requests are their own prefix-cache identity (vLLM
     * hashes an adapter's blocks apart from the base model's and every other adapter's).
     */
    public boolean isAdapter(String name) {
        return adapterNames.contains(name);
    }

    /**
     * The key of the model {@code name} serves, the same for all its aliases: what a session is pinned under, so that a
     * session switching between two names of one model keeps its home. A name no endpoint lists is its own key.
     */
    public String modelKey(String name) {
        String key = modelKeys.get(name);
        return key == null ? name : key;
    }

    /** The endpoint's served names, or {@link ServedModels#UNKNOWN}. */
    public ServedModels servedModels(String endpointId) {
        EndpointState e = endpoints.get(endpointId);
        return e == null ? ServedModels.UNKNOWN : e.servedModels();
    }

    /**
     * What the endpoint's {@code GET /version} answered ({@link EngineVersion#UNKNOWN} for a 404 or an unreadable
     * answer), or {@code retryAfterNanos} > 0 when it did not answer (asked again that much later, keeping what it said
     * before): logged when it changes, and checked against the features the router uses with it ({@link EngineFeature}).
     */
    public synchronized void recordEngineVersion(String endpointId, EngineVersion v, long nowNanos, long retryAfterNanos) {
        EndpointState e = endpoints.get(endpointId);
        if (e == null) {
            return;
        }
        EngineVersion before = e.engineVersion();
        e.engineVersionRead(v, nowNanos, retryAfterNanos);
        if (!before.equals(e.engineVersion())) {
            LogFields.info(LOG, "endpoint engine version", "endpoint", endpointId, "engineVersion", e.engineVersion().text());
        }
        checkEngine(e);
    }

    /** The endpoint's engine version, or {@link EngineVersion#UNKNOWN}. */
    public EngineVersion engineVersion(String endpointId) {
        EndpointState e = endpoints.get(endpointId);
        return e == null ? EngineVersion.UNKNOWN : e.engineVersion();
    }

    /** Notices that the endpoint's engine is older than a feature the router uses with it needs; empty when none. */
    public List<String> engineWarnings(String endpointId) {
        EndpointState e = endpoints.get(endpointId);
        return e == null ? List.of() : e.engineWarnings();
    }

    private void checkEngine(EndpointState e) {
        boolean anyPublishes = kvEventsFollowed && endpoints.values().stream().anyMatch(EndpointState::publishesKvEvents);
        e.engineWarnings(engineWarnings.check(e.id(), e.engineVersion(), EngineVersionWarnings.used(
                kvEventsFollowed && e.publishesKvEvents(), anyPublishes, !e.ranks().isEmpty(), e.reportsHostTier())));
    }

    /** Makes the endpoint's replicas match its ranks: itself, or one replica per rank. */
    private void syncReplicas(EndpointState e) {
        Map<String, Integer> wanted = new LinkedHashMap<>();
        if (e.ranks().isEmpty()) {
            wanted.put(e.id(), -1);
        } else {
            e.ranks().forEach(rank -> wanted.put(e.replicaId(rank), rank));
        }
        for (ReplicaState r : replicasOf(e.id())) {
            if (!wanted.containsKey(r.id())) {
                remove(r.id());
            }
        }
        wanted.forEach((id, rank) -> {
            ReplicaState r = replicas.get(id);
            if (r == null) {
                ReplicaState created = new ReplicaState(id, e.id(), rank, e.url(), e.discoveredReady());
                created.discoveredDraining(e.discoveredDraining());
                replicas.put(id, created);
                if (rank >= 0) {
                    LogFields.info(LOG, "replica added", "replica", id, "endpoint", e.id(), "rank", rank);
                }
                additionListeners.forEach(l -> l.accept(id));
            } else {
                boolean was = draining(r);
                r.update(e.url(), e.discoveredReady());
                r.discoveredDraining(e.discoveredDraining());
                if (!was && draining(r)) {
                    drainStarted(id);
                }
            }
        });
    }

    /** Whether the replica takes no new work: its endpoint is going, or an operator drains it. */
    private boolean draining(ReplicaState r) {
        return r.discoveredDraining() || operatorDrains.contains(r.id());
    }

    private void drainStarted(String replicaId) {
        LogFields.info(LOG, "replica draining", "replica", replicaId);
        drainListeners.forEach(l -> l.accept(replicaId));
    }

    /**
     * The replicas operators drain now, the whole set (from this router's admin API, or a peer's through the cluster).
     * Those that start to drain tell the drain listeners; those no longer in it take new work again.
     */
    public synchronized void operatorDrains(Set<String> drained) {
        Set<String> before = operatorDrains;
        operatorDrains = Set.copyOf(drained);
        for (ReplicaState r : replicas.values()) {
            boolean was = r.discoveredDraining() || before.contains(r.id());
            boolean now = draining(r);
            if (!was && now) {
                drainStarted(r.id());
            } else if (was && !now) {
                LogFields.info(LOG, "replica undrained", "replica", r.id());
            }
        }
    }

    /** Whether an operator drains the replica (a terminating endpoint drains without one). */
    public boolean operatorDrains(String replicaId) {
        return operatorDrains.contains(replicaId);
    }

    private void remove(String replicaId) {
        if (replicas.remove(replicaId) != null) {
            LogFields.info(LOG, "replica removed", "replica", replicaId);
            removalListeners.forEach(l -> l.accept(replicaId));
        }
    }

    private List<ReplicaState> replicasOf(String endpointId) {
        return replicas.values().stream().filter(r -> r.endpointId().equals(endpointId)).toList();
    }

    public Optional<ReplicaState> get(String id) {
        return Optional.ofNullable(replicas.get(id));
    }

    public Collection<ReplicaState> all() {
        return replicas.values();
    }

    /** The endpoints to scrape: one per API server, however many replicas each is. */
    Collection<EndpointState> endpoints() {
        return endpoints.values();
    }

    /**
     * A scrape of one endpoint: learns its engine ranks when none were declared (several {@code engine}
     * labels → one replica per rank), and gives each replica its own engine's figures (or the sum, for a
     * replica that is the whole endpoint). A good scrape makes the endpoint healthy again.
     */
    public synchronized void recordScrape(String endpointId, EndpointMetrics scrape) {
        EndpointState e = endpoints.get(endpointId);
        if (e == null) {
            return;
        }
        e.metricsLabelled(scrape.total().models(), scrape.total().scrapedAtNanos(), SERVED_MODELS_LABEL_RECHECK_NANOS);
        if (e.learnsRanks() && !e.ranks().equals(scrape.engines().size() > 1 ? scrape.engines() : List.of())) {
            e.learnRanks(scrape.engines());
            LogFields.info(LOG, "endpoint engine ranks learned from its /metrics", "endpoint", endpointId, "ranks", e.ranks());
            syncReplicas(e);
            checkEngine(e);
        }
        if (e.reportsHostTier() != scrape.total().hostTier().present()) {
            e.reportsHostTier(scrape.total().hostTier().present());
            checkEngine(e);
        }
        for (ReplicaState r : replicasOf(endpointId)) {
            if (r.dataParallelRank().isEmpty()) {
                r.recordScrape(scrape.total());
            } else {
                ScrapedMetrics own = scrape.byEngine().get(r.dataParallelRank().getAsInt());
                if (own != null) {
                    r.recordScrape(own);
                } else {
                    r.markHealthy(true);
                }
            }
        }
    }

    /**
     * Marks the endpoint unhealthy after a failed request or scrape; {@code id} names the endpoint or any
     * replica of it, since a server that fails takes all its engine ranks with it. The next good scrape
     * restores it.
     */
    public void markUnhealthy(String id) {
        ReplicaState replica = replicas.get(id);
        String endpointId = replica != null ? replica.endpointId() : id;
        EndpointState endpoint = endpoints.get(endpointId);
        if (endpoint != null) {
            // It may come back as another process (a restart) serving other names, on another engine version.
            endpoint.servedModelsStale();
            endpoint.engineVersionStale();
        }
        for (ReplicaState s : replicasOf(endpointId)) {
            if (s.healthy()) {
                s.markHealthy(false);
                LogFields.warn(LOG, "replica unhealthy", "replica", s.id());
                removalListeners.forEach(l -> l.accept(s.id()));
            }
        }
    }

    /** Whether a proxied response brought bytes from any replica of the endpoint since {@code sinceNanos}. */
    public boolean heardFromSince(String endpointId, long sinceNanos) {
        return replicasOf(endpointId).stream().anyMatch(s -> s.heardSince(sinceNanos));
    }

    /** Whether any replica of the endpoint is still marked healthy. */
    boolean anyHealthy(String endpointId) {
        return replicasOf(endpointId).stream().anyMatch(ReplicaState::healthy);
    }

    public PoolSnapshot snapshot(ToIntFunction<String> stickySessions, long nowNanos) {
        return snapshot(stickySessions, id -> 0, nowNanos);
    }

    /**
     * {@code peerInFlight}: requests other routers of the same cluster have in flight on a replica;
     * a view's in-flight count is this router's plus theirs, since the engine's slots are shared.
     */
    public PoolSnapshot snapshot(ToIntFunction<String> stickySessions, ToIntFunction<String> peerInFlight, long nowNanos) {
        List<ReplicaView> views = new ArrayList<>(replicas.size());
        for (ReplicaState s : replicas.values()) {
            ScrapedMetrics m = s.metrics();
            boolean fresh = m != null && nowNanos - m.scrapedAtNanos() <= staleAfterNanos;
            int inFlight = s.inFlight() + peerInFlight.applyAsInt(s.id());
            boolean draining = draining(s);
            views.add(new ReplicaView(s.id(), s.url(), s.discoveredReady() && s.healthy() && !draining, inFlight,
                    s.sentSinceScrape(), stickySessions.applyAsInt(s.id()), s.pendingPrefillTokens(), s.pendingRequests(),
                    s.pendingAtScrape(), m, fresh, s.endpointId(), s.dataParallelRank().orElse(-1), servedModels(s.endpointId()),
                    DrainState.of(draining, inFlight)));
        }
        views.sort(SNAPSHOT_ORDER);
        return new PoolSnapshot(views, nowNanos);
    }
}
