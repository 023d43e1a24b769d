package io.lmwarden.sim;

/**
 * One consistent view of an engine's state and counters (token counts, like vLLM's metrics).
 *
 * @param externalPrefixQueries host-tier lookups in tokens (vLLM's external_prefix_cache_queries); 0 without a tier
 * @param externalPrefixHits    tokens found there and loaded (external_prefix_cache_hits)
 * @param hostTierBlocksUsed    blocks the host tier holds
 * @param hostTierBlocks        its capacity in blocks (0 without a tier)
 */
public record EngineSnapshot(int running, int waiting, double kvUsage, long prefixQueries, long prefixHits,
                             long promptTokens, long generationTokens, long preemptions, long externalPrefixQueries,
                             long externalPrefixHits, int hostTierBlocksUsed, int hostTierBlocks) {
}
