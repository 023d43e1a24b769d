package io.lmwarden.router.api;

import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.kvevents.ReplicaCacheView;
import io.lmwarden.router.kvevents.ViewState;
import io.lmwarden.router.kvevents.ViewStatus;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A replica's cache view in {@code /api/replicas}: {@code cacheView} says where placement's idea of what it holds
 * comes from right now ({@code events}: the engine's KV events; {@code estimated}: the router's own index, when no
 * publisher is followed or its view is not live), {@code cacheViewStale} whether a followed view went stale, and
 * {@code kvEvents} the view's figures (null when none is followed).
 */
final class CacheViewFields {

    private CacheViewFields() {
    }

    static void put(Map<String, Object> row, EngineCacheViews views, String replicaId) {
        Optional<ReplicaCacheView> view = views.view(replicaId);
        ViewStatus s = view.map(ReplicaCacheView::status).orElse(null);
        row.put("cacheView", s != null && s.usable() ? "events" : "estimated");
        row.put("cacheViewStale", s != null && s.state() == ViewState.STALE);
        if (s == null) {
            row.put("kvEvents", null);
            return;
        }
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("state", s.state().name().toLowerCase(java.util.Locale.ROOT));
        k.put("complete", s.complete());
        k.put("blockSize", s.blockSize());
        k.put("gpuBlocks", s.gpuBlocks());
        k.put("cpuBlocks", s.cpuBlocks());
        k.put("storageBlocks", s.storageBlocks());
        k.put("indexBytes", s.indexBytes());
        k.put("batches", s.batches());
        k.put("events", s.events());
        k.put("gaps", s.gaps());
        k.put("replays", s.replays());
        k.put("resyncs", s.resyncs());
        k.put("unreadableBatches", s.unreadableBatches());
        k.put("publisherRestarts", s.publisherRestarts());
        k.put("reconnects", view.get().reconnects());
        k.put("msSinceLastBatch", s.millisSinceLastBatch());
        k.put("clearedAtMillis", view.get().lastColdAtMillis());
        row.put("kvEvents", k);
    }
}
