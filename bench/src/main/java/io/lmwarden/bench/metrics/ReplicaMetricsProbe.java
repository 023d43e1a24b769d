package io.lmwarden.bench.metrics;

import io.lmwarden.router.pool.EndpointMetrics;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.EngineMetricsParser;
import io.vertx.core.Future;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads each replica's own {@code GET /metrics} (the simulators of a separate-process pool), parsed as the router
 * parses them. A replica that does not answer (killed) keeps its last counters and counts as idle, so a stage's
 * deltas stay what it served before it died. A replica whose process was replaced (a rolling upgrade) starts its
 * counters from zero again: as Prometheus's {@code rate()} does, a counter that went down is taken as reset and the
 * old process's last value is added to the new one's, so a stage's deltas count both.
 */
public final class ReplicaMetricsProbe implements ReplicaProbe {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
    private final List<String> ids;
    private final List<String> urls;
    private final Map<String, List<ReplicaReading>> last = new ConcurrentHashMap<>();
    /** Per reading id: the last raw counters read, and what earlier processes of the replica had counted. */
    private final Map<String, double[]> lastRaw = new java.util.HashMap<>();
    private final Map<String, double[]> offset = new java.util.HashMap<>();

    public ReplicaMetricsProbe(List<String> ids, List<String> urls) {
        this.ids = List.copyOf(ids);
        this.urls = List.copyOf(urls);
    }

    @Override
    public Future<List<ReplicaReading>> read() {
        List<CompletableFuture<List<ReplicaReading>>> reads = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            reads.add(http.sendAsync(HttpRequest.newBuilder(URI.create(urls.get(i) + "/metrics")).timeout(TIMEOUT).GET().build(),
                            HttpResponse.BodyHandlers.ofString())
                    .thenApply(resp -> {
                        if (resp.statusCode() != 200) {
                            throw new IllegalStateException("HTTP " + resp.statusCode());
                        }
                        List<ReplicaReading> readings = readings(id, EngineMetricsParser.parseEndpoint(resp.body(), System.nanoTime()))
                                .stream().map(this::acrossRestarts).toList();
                        last.put(id, readings);
                        return readings;
                    })
                    .exceptionally(e -> idle(last.getOrDefault(id, List.of(new ReplicaReading(id, 0, 0, 0, 0, 0))))));
        }
        return Future.fromCompletionStage(CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<ReplicaReading> all = new ArrayList<>();
            reads.forEach(r -> all.addAll(r.join()));
            return all;
        }));
    }

    /** One reading per engine: behind a data-parallel server each engine rank is a replica of the table. */
    static List<ReplicaReading> readings(String id, EndpointMetrics scrape) {
        if (scrape.byEngine().size() <= 1) {
            return List.of(reading(id, scrape.total()));
        }
        List<ReplicaReading> out = new ArrayList<>();
        scrape.byEngine().forEach((rank, m) -> out.add(reading(id + "/rank-" + rank, m)));
        return out;
    }

    private static ReplicaReading reading(String id, ScrapedMetrics m) {
        return new ReplicaReading(id, m.running(), m.waiting(), m.prefixCacheQueries(), m.prefixCacheHits(), m.generationTokens());
    }

    /**
     * The counters summed over the replica's processes. A reading far below the last one means a new process; one a
     * little below is an older answer that arrived late (reads overlap), not a reset.
     */
    private synchronized ReplicaReading acrossRestarts(ReplicaReading r) {
        double[] raw = {r.prefixCacheQueries(), r.prefixCacheHits(), r.generationTokens()};
        double[] before = lastRaw.put(r.id(), raw);
        double[] add = offset.computeIfAbsent(r.id(), k -> new double[raw.length]);
        if (before != null && raw[0] < before[0] / 2) {
            for (int i = 0; i < raw.length; i++) {
                add[i] += before[i];
            }
        }
        return new ReplicaReading(r.id(), r.running(), r.waiting(), raw[0] + add[0], raw[1] + add[1], raw[2] + add[2]);
    }

    private static List<ReplicaReading> idle(List<ReplicaReading> lastSeen) {
        return lastSeen.stream().map(r -> new ReplicaReading(r.id(), 0, 0, r.prefixCacheQueries(), r.prefixCacheHits(),
                r.generationTokens())).toList();
    }

    @Override
    public String describe() {
        return "each simulator process's own /metrics (" + ids.size() + " processes), parsed as the router parses them";
    }
}
