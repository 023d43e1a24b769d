package io.lmwarden.bench.report;

/**
 * One replica's share of a stage (results.json {@code replicas}; per repeat, not medians).
 *
 * @param requests     steps it served that ended in the stage (by {@code X-LMW-Replica})
 * @param ttfbP50      median TTFB of those steps, workload seconds
 * @param prefixHitPct Δ hits / Δ queries of its own engine counters, percent
 * @param busyPct      share of busy samples in which it had a running request, percent
 */
public record ReplicaFigures(String id, int requests, int errors, double ttfbP50, double prefixHitPct, double busyPct) {
}
