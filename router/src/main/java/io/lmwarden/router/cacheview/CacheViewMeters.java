package io.lmwarden.router.cacheview;

import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.kvevents.Medium;
import io.lmwarden.router.kvevents.ReplicaCacheView;
import io.lmwarden.router.kvevents.ViewState;
import io.lmwarden.router.kvevents.ViewStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.HashSet;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Per replica whose KV events the router follows: {@code lmw_kv_events_batches_total}, {@code lmw_kv_events_gaps_total},
 * {@code lmw_kv_events_resyncs_total}, {@code lmw_kv_view_stale} (1 while its view is stale: placement uses estimates
 * there) and {@code lmw_kv_view_blocks{medium}} (distinct blocks the view holds per tier). Read from the view at scrape
 * time; a view started over (a new address) counts from 0 again, which Prometheus takes for a counter reset.
 */
public final class CacheViewMeters {

    private final MeterRegistry registry;
    private final EngineCacheViews views;
    private final Set<String> registered = new HashSet<>();

    public CacheViewMeters(MeterRegistry registry, EngineCacheViews views) {
        this.registry = registry;
        this.views = views;
    }

    /** Registers the meters of a replica's view the first time it is followed. */
    public synchronized void viewFollowed(String replicaId) {
        if (!registered.add(replicaId)) {
            return;
        }
        counter("lmw_kv_events_batches_total", "KV-event batches received from the replica's publisher", replicaId, ViewStatus::batches);
        counter("lmw_kv_events_gaps_total", "sequence gaps in the replica's KV-event stream", replicaId, ViewStatus::gaps);
        counter("lmw_kv_events_resyncs_total", "times the replica's cache view was dropped and rebuilt (a gap replay could not fill)",
                replicaId, ViewStatus::resyncs);
        Gauge.builder("lmw_kv_view_stale", views, v -> v.view(replicaId).map(x -> x.state() == ViewState.STALE ? 1.0 : 0.0).orElse(0.0))
                .description("1 while the replica's KV-event view is stale (placement uses the router's estimates there)")
                .tag("replica", replicaId).register(registry);
        for (Medium m : Medium.values()) {
            Gauge.builder("lmw_kv_view_blocks", views, v -> v.view(replicaId).map(x -> blocks(x.status(), m)).orElse(0.0))
                    .description("distinct KV blocks the replica holds by its events, per tier")
                    .tags("replica", replicaId, "medium", m.name()).register(registry);
        }
    }

    private void counter(String name, String description, String replicaId, ToDoubleFunction<ViewStatus> f) {
        FunctionCounter.builder(name, views, v -> v.view(replicaId).map(x -> f.applyAsDouble(x.status())).orElse(0.0))
                .description(description).tag("replica", replicaId).register(registry);
    }

    private static double blocks(ViewStatus s, Medium m) {
        return switch (m) {
            case GPU -> s.gpuBlocks();
            case CPU -> s.cpuBlocks();
            case STORAGE -> s.storageBlocks();
        };
    }
}
