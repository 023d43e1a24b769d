package io.lmwarden.bench.metrics;

/**
 * One replica's engine gauges and raw counters at one moment.
 *
 * @param loraSlotWaits requests that waited at least one step for a LoRA adapter slot (max_loras), NaN where the source
 *                      has no such counter (vLLM's {@code /metrics} has none: only the simulated engines, read in-process)
 * @param loraDiskLoads adapters loaded from disk before a step that needed them, NaN where unknown (as above)
 */
public record ReplicaReading(
        String id,
        double running,
        double waiting,
        double prefixCacheQueries,
        double prefixCacheHits,
        double generationTokens,
        double loraSlotWaits,
        double loraDiskLoads) {

    /** A reading without the adapter counters. */
    public ReplicaReading(String id, double running, double waiting, double prefixCacheQueries, double prefixCacheHits,
                          double generationTokens) {
        this(id, running, waiting, prefixCacheQueries, prefixCacheHits, generationTokens, Double.NaN, Double.NaN);
    }
}
