package io.lmwarden.router.pool;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One scrape of an endpoint's {@code /metrics}: the sum over its engines, and each engine's own figures by
 * its {@code engine} label (vLLM's data-parallel mode labels them {@code "0".."N-1"}).
 */
public record EndpointMetrics(ScrapedMetrics total, Map<Integer, ScrapedMetrics> byEngine) {

    public EndpointMetrics {
        byEngine = java.util.Collections.unmodifiableMap(new TreeMap<>(byEngine));
    }

    /** The engine labels seen, in order. */
    public List<Integer> engines() {
        return List.copyOf(byEngine.keySet());
    }
}
