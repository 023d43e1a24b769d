package io.lmwarden.router.pool;

import java.util.Set;

/**
 * One scrape of a replica's {@code /metrics}, summed over its engines. Counters are the engine's
 * raw totals; rates and hit percentages are differences between two scrapes.
 */
public record EngineMetrics(
        long scrapedAtNanos,
        double running,
        double waiting,
        double kvCacheUsage,
        double prefixCacheQueries,
        double prefixCacheHits,
        double promptTokens,
        double generationTokens,
        double preemptions,
        int numGpuBlocks,
        int blockSize,
        double queueTimeSum,
        double queueTimeCount,
        double prefillTimeSum,
        double prefillTimeCount,
        Set<String> models) {

    public EngineMetrics {
        models = Set.copyOf(models);
    }

    /** Total KV capacity in tokens, or 0 when the engine does not publish {@code cache_config_info}. */
    public long kvCapacityTokens() {
        return (long) numGpuBlocks * blockSize;
    }

    public double prefixHitRate() {
        return prefixCacheQueries <= 0 ? 0 : prefixCacheHits / prefixCacheQueries;
    }
}
