package io.lmwarden.router.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.logging.Logger;

/** The set of replicas and their live state; applies discovery changes and hands out snapshots. */
public final class ReplicaPool {

    private static final Logger LOG = Logger.getLogger(ReplicaPool.class.getName());

    private final Map<String, ReplicaState> replicas = new ConcurrentHashMap<>();
    private final long staleAfterNanos;
    private final List<Consumer<String>> removalListeners = new CopyOnWriteArrayList<>();

    public ReplicaPool(Duration metricsStaleAfter) {
        this.staleAfterNanos = metricsStaleAfter.toNanos();
    }

    /** Called with a replica id when it leaves the pool or stops being ready. */
    public void onUnavailable(Consumer<String> listener) {
        removalListeners.add(listener);
    }

    /** Applies the whole current set from discovery. */
    public synchronized void apply(List<DiscoveredReplica> discovered) {
        Set<String> seen = new HashSet<>();
        for (DiscoveredReplica d : discovered) {
            seen.add(d.id());
            ReplicaState existing = replicas.get(d.id());
            if (existing == null) {
                replicas.put(d.id(), new ReplicaState(d.id(), d.url(), d.ready()));
                LOG.info(() -> "replica added id=" + d.id() + " url=" + d.url() + " ready=" + d.ready());
            } else {
                boolean wasReady = existing.discoveredReady();
                existing.update(d.url(), d.ready());
                if (wasReady != d.ready()) {
                    LOG.info(() -> "replica " + (d.ready() ? "ready" : "not ready") + " id=" + d.id());
                    if (!d.ready()) {
                        removalListeners.forEach(l -> l.accept(d.id()));
                    }
                }
            }
        }
        for (String id : new ArrayList<>(replicas.keySet())) {
            if (!seen.contains(id)) {
                replicas.remove(id);
                LOG.info(() -> "replica removed id=" + id);
                removalListeners.forEach(l -> l.accept(id));
            }
        }
    }

    public Optional<ReplicaState> get(String id) {
        return Optional.ofNullable(replicas.get(id));
    }

    public Collection<ReplicaState> all() {
        return replicas.values();
    }

    /** Marks a replica unhealthy after a failed request or scrape; the next good scrape restores it. */
    public void markUnhealthy(String id) {
        ReplicaState s = replicas.get(id);
        if (s != null && s.healthy()) {
            s.markHealthy(false);
            LOG.warning(() -> "replica unhealthy id=" + id);
            removalListeners.forEach(l -> l.accept(id));
        }
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
            EngineMetrics m = s.metrics();
            boolean fresh = m != null && nowNanos - m.scrapedAtNanos() <= staleAfterNanos;
            views.add(new ReplicaView(s.id(), s.url(), s.discoveredReady() && s.healthy(), s.inFlight() + peerInFlight.applyAsInt(s.id()),
                    s.sentSinceScrape(), stickySessions.applyAsInt(s.id()), s.pendingPrefillTokens(), s.pendingRequests(), s.pendingAtScrape(), m, fresh));
        }
        views.sort(Comparator.comparing(ReplicaView::id));
        return new PoolSnapshot(views, nowNanos);
    }
}
