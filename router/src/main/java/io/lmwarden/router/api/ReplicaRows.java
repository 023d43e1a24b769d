package io.lmwarden.router.api;

import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.placement.lora.AdapterActivity;
import io.lmwarden.router.placement.lora.AdapterLoader;
import io.lmwarden.router.placement.lora.LoraSlots;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.pins.SessionPins;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.ResidencyTable;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.stats.ReplicaHistory;
import io.lmwarden.router.stats.RouterMetrics;
import io.lmwarden.router.stats.SessionLog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** One row per replica of {@code /api/replicas}: its counters, its engine's figures, its residents and its recent activity. */
public final class ReplicaRows {

    private final ReplicaPool pool;
    private final AdmissionController admission;
    private final SessionLog sessions;
    private final SessionPins pins;
    private final ReplicaHistory history;
    private final RouterMetrics metrics;
    private final EngineCacheViews cacheViews;
    private final AdapterActivity adapters;
    private final LoraSlots loraSlots;
    private final AdapterLoader adapterLoader;

    public ReplicaRows(ReplicaPool pool, AdmissionController admission, SessionLog sessions, SessionPins pins, ReplicaHistory history,
                RouterMetrics metrics, EngineCacheViews cacheViews, AdapterActivity adapters, LoraSlots loraSlots,
                AdapterLoader adapterLoader) {
        this.adapterLoader = adapterLoader;
        this.cacheViews = cacheViews;
        this.adapters = adapters;
        this.loraSlots = loraSlots;
        this.pool = pool;
        this.admission = admission;
        this.sessions = sessions;
        this.pins = pins;
        this.history = history;
        this.metrics = metrics;
    }

    List<Map<String, Object>> rows(PoolSnapshot snap, long windowMillis, UnaryOperator<String> shownKey) {
        ReplicaActivity activity = new ReplicaActivity(sessions, pins, pool::modelKey, history, metrics.spillPairs(), System.currentTimeMillis(),
                windowMillis, shownKey);
        List<Map<String, Object>> rows = new ArrayList<>();
        Map<String, ResidencyTable.ReplicaLoad> resident = admission.residentLoads();
        for (ReplicaView r : snap.replicas()) {
            ReplicaState s = pool.get(r.id()).orElse(null);
            // A replica that is not ready has no current figures: its last scrape would pass for a live one.
            ScrapedMetrics e = r.ready() || r.drain().active() ? r.metrics() : null;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", r.id());
            row.put("url", r.url());
            row.put("endpoint", r.endpointId());
            row.put("rank", r.rank() < 0 ? null : r.rank());
            row.put("ready", r.ready());
            row.put("drain", r.drain().label());
            row.put("inFlight", r.inFlight());
            row.put("stickySessions", r.stickySessions());
            row.put("requests", s == null ? 0 : s.requests());
            row.put("spilledIn", s == null ? 0 : s.spilledIn());
            row.put("clientPinned", s == null ? 0 : s.clientPinned());
            row.put("failures", s == null ? 0 : s.failures());
            row.put("metricsFresh", r.metricsFresh());
            row.put("metricsAgeMs", e == null ? null : (snap.takenAtNanos() - e.scrapedAtNanos()) / 1_000_000);
            row.put("running", e == null ? null : e.running());
            row.put("waiting", e == null ? null : e.waiting());
            row.put("kvCacheUsage", e == null ? null : e.kvCacheUsage());
            row.put("prefixHitRate", e == null ? null : JsonReplies.round(e.prefixHitRate()));
            row.put("prefixCacheQueries", e == null ? null : e.prefixCacheQueries());
            row.put("prefixCacheHits", e == null ? null : e.prefixCacheHits());
            row.put("promptTokens", e == null ? null : e.promptTokens());
            row.put("generationTokens", e == null ? null : e.generationTokens());
            row.put("kvCapacityTokens", e == null ? null : e.kvCapacityTokens());
            row.put("hostTier", HostTierRow.of(e));
            row.put("lora", AdapterRow.of(r, e, adapters.on(r.id(), snap.takenAtNanos()), loraSlots,
                    adapterLoader.on(r.endpointId())));
            row.put("models", e == null ? List.of() : e.models());
            // All the names its endpoint answers to (GET /v1/models); the metrics' label (the first name) until they are read.
            row.put("servedModels", r.servedModels().known() ? r.servedModels().names()
                    : r.metrics() == null ? List.of() : List.copyOf(r.metrics().models()));
            row.put("servedModelsFrom", r.servedModels().known() ? "/v1/models" : r.metrics() == null ? null : "metrics");
            // Its endpoint's GET /version ("unknown" without one), and what its engine is too old for (pool/EngineFeature).
            row.put("engineVersion", pool.engineVersion(r.endpointId()).text());
            row.put("warnings", pool.engineWarnings(r.endpointId()));
            CacheViewFields.put(row, cacheViews, r.id());
            ResidencyTable.ReplicaLoad load = resident.get(r.id());
            row.put("residentSessions", load == null ? 0 : load.residentSessions());
            row.put("workingSetTokens", load == null ? 0 : load.usedBlocks() * PrefixIndexes.TOKENS_PER_BLOCK);
            row.put("kvBudgetTokens", admission.budgetTokens(r));
            activity.addTo(r.id(), row);
            rows.add(row);
        }
        return rows;
    }
}
