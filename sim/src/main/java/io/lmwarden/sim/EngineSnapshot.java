package io.lmwarden.sim;

/**
 * One consistent view of an engine's state and counters (token counts, like vLLM's metrics).
 *
 * @param externalPrefixQueries host-tier lookups in tokens (vLLM's external_prefix_cache_queries); 0 without a tier
 * @param externalPrefixHits    tokens found there and loaded (external_prefix_cache_hits)
 * @param hostTierBlocksUsed    blocks the host tier holds
 * @param hostTierBlocks        its capacity in blocks (0 without a tier)
 * @param loraSlotWaits         requests that waited at least one step because their LoRA adapter had no slot in the batch
 *                              (vLLM's max_loras); 0 without LoRA
 * @param loraDiskLoads         adapters loaded from disk (not resident in CPU memory) before a step that needed them
 * @param loraActivations       adapters copied into a GPU slot before a step that needed them
 */
public record EngineSnapshot(int running, int waiting, double kvUsage, long prefixQueries, long prefixHits,
                             long promptTokens, long generationTokens, long preemptions, long externalPrefixQueries,
                             long externalPrefixHits, int hostTierBlocksUsed, int hostTierBlocks, long loraSlotWaits,
                             long loraDiskLoads, long loraActivations) {
}
