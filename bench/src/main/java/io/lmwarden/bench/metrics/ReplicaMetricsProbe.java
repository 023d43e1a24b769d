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
 * deltas stay what it served before it died.
 */
public final class ReplicaMetricsProbe implements ReplicaProbe {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
    private final List<String> ids;
    private final List<String> urls;
    private final Map<String, List<ReplicaReading>> last = new ConcurrentHashMap<>();

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
                        List<ReplicaReading> readings = readings(id, EngineMetricsParser.parseEndpoint(resp.body(), System.nanoTime()));
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

    private static List<ReplicaReading> idle(List<ReplicaReading> lastSeen) {
        return lastSeen.stream().map(r -> new ReplicaReading(r.id(), 0, 0, r.prefixCacheQueries(), r.prefixCacheHits(),
                r.generationTokens())).toList();
    }

    @Override
    public String describe() {
        return "each simulator process's own /metrics (" + ids.size() + " processes), parsed as the router parses them";
    }
}
