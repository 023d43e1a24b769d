package io.lmwarden.sim.engine;

/**
 * A copy of one engine's host-tier and prompt-source counters, for the /metrics exposition (beside
 * {@link EngineMetrics}). Transfer times are simulated seconds.
 *
 * @param hostTier       whether the engine has a host tier (its {@code vllm:kv_offload_*} series exist only then)
 * @param cpuUsage       vLLM's {@code kv_offload_cpu_cache_usage_perc}: the fraction of the tier pinned by transfers in
 *                       flight (idle cached blocks are evictable and do not count)
 * @param hostBlocksUsed blocks the tier holds (occupancy; vLLM has no series for it)
 */
public record CacheTierMetrics(boolean hostTier, double kvOffloadGib, long externalQueries, long externalHits,
                               long promptComputed, long promptLocalHit, long promptExternal, long promptCached,
                               long promptRecomputed, long loadBytes, double loadSeconds, long storeBytes,
                               double storeSeconds, Histogram loadSize, Histogram storeSize, double cpuUsage,
                               int hostBlocksUsed, int hostBlocksTotal) {
}
