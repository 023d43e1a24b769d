package io.lmwarden.bench.metrics;

/** One replica's engine gauges and raw counters at one moment. */
public record ReplicaReading(
        String id,
        double running,
        double waiting,
        double prefixCacheQueries,
        double prefixCacheHits,
        double generationTokens) {
}
