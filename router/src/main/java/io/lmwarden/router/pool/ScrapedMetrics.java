package io.lmwarden.router.pool;

import java.util.Set;

/**
 * One scrape of a replica's {@code /metrics}, summed over its engines. Counters are the engine's
 * raw totals; rates and hit percentages are differences between two scrapes.
 */
public record ScrapedMetrics(
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
        Set<String> models,
        HostTierMetrics hostTier,
        LoraMetrics lora) {

    public ScrapedMetrics {
        models = Set.copyOf(models);
        hostTier = hostTier == null ? HostTierMetrics.NONE : hostTier;
        lora = lora == null ? LoraMetrics.NONE : lora;
    }

    /** Total KV capacity in tokens, or 0 when the engine does not publish {@code cache_config_info}. */
    public long kvCapacityTokens() {
        return (long) numGpuBlocks * blockSize;
    }

    public double prefixHitRate() {
        return prefixCacheQueries <= 0 ? 0 : prefixCacheHits / prefixCacheQueries;
    }

    /** An idle engine scraped at time 0 with nothing counted, to be refined. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a scrape field by field instead of through the canonical constructor (a field per figure). */
    public static final class Builder {
        private long scrapedAtNanos;
        private double running;
        private double waiting;
        private double kvCacheUsage;
        private double prefixCacheQueries;
        private double prefixCacheHits;
        private double promptTokens;
        private double generationTokens;
        private double preemptions;
        private int numGpuBlocks;
        private int blockSize = 16;
        private double queueTimeSum;
        private double queueTimeCount;
        private double prefillTimeSum;
        private double prefillTimeCount;
        private Set<String> models = Set.of();
        private HostTierMetrics hostTier = HostTierMetrics.NONE;
        private LoraMetrics lora = LoraMetrics.NONE;

        private Builder() {
        }

        public Builder scrapedAtNanos(long v) {
            scrapedAtNanos = v;
            return this;
        }

        public Builder running(double v) {
            running = v;
            return this;
        }

        public Builder waiting(double v) {
            waiting = v;
            return this;
        }

        public Builder kvCacheUsage(double v) {
            kvCacheUsage = v;
            return this;
        }

        public Builder prefixCache(double queries, double hits) {
            prefixCacheQueries = queries;
            prefixCacheHits = hits;
            return this;
        }

        public Builder tokens(double prompt, double generation) {
            promptTokens = prompt;
            generationTokens = generation;
            return this;
        }

        public Builder preemptions(double v) {
            preemptions = v;
            return this;
        }

        /** KV capacity as vLLM's {@code cache_config_info} gives it: blocks of {@code blockSize} tokens. */
        public Builder kvBlocks(int blocks, int tokensPerBlock) {
            numGpuBlocks = blocks;
            blockSize = tokensPerBlock;
            return this;
        }

        public Builder queueTime(double sum, double count) {
            queueTimeSum = sum;
            queueTimeCount = count;
            return this;
        }

        public Builder prefillTime(double sum, double count) {
            prefillTimeSum = sum;
            prefillTimeCount = count;
            return this;
        }

        public Builder models(String... names) {
            models = Set.of(names);
            return this;
        }

        /** The engine's host-memory KV tier. */
        public Builder hostTier(HostTierMetrics v) {
            hostTier = v;
            return this;
        }

        /** The engine's LoRA gauge. */
        public Builder lora(LoraMetrics v) {
            lora = v;
            return this;
        }

        public ScrapedMetrics build() {
            return new ScrapedMetrics(scrapedAtNanos, running, waiting, kvCacheUsage, prefixCacheQueries, prefixCacheHits, promptTokens,
                    generationTokens, preemptions, numGpuBlocks, blockSize, queueTimeSum, queueTimeCount, prefillTimeSum,
                    prefillTimeCount, models, hostTier, lora);
        }
    }
}
