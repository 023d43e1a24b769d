package io.lmwarden.router.placement.admission;

import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ReplicaView;

/**
 * What a replica can keep of its resident sessions' working sets, by tier, and what it costs to bring a session back
 * from the slower one. A session whose blocks left the GPU but remain in the host tier returns for the load time
 * (bytes over the tier's bandwidth, ~70 ms for 12k tokens of Qwen3-4B at 25 GB/s) instead of a re-prefill (~3.6 s on
 * the reference A4000): it is as good as resident. vLLM's native offloading is write-through (every computed prompt
 * block is copied to the tier), so the tier holds a copy of what the GPU holds and the two together keep
 * {@code max(gpu, host)} distinct tokens, not their sum.
 *
 * <p>Admission's budget takes at most {@link #HOST_TIER_BUDGET_FACTOR} times the GPU cache of it, not the whole tier:
 * the engine can only run what its GPU holds, and residents are admitted to their home whatever its load. With the
 * whole tier (5× the GPU) as the budget, admission never engaged on the reference workload at 32–48 sessions; each
 * replica then had 8–12 sessions in flight, past the spill threshold, and the spilled steps recomputed everything
 * (docs/host-kv-tier.md; the runs in bench/results/tier24/summary.md).
 *
 * @param gpuTokens  the replica's KV cache (the engine's {@code cache_config_info}, else the default)
 * @param hostTier   its host tier as last scraped ({@link HostTierMetrics#NONE} without one)
 */
public record ReplicaKvCapacity(long gpuTokens, HostTierMetrics hostTier) {

    /** The most of the host tier admission counts, in GPU caches: twice the GPU's sessions resident. */
    public static final int HOST_TIER_BUDGET_FACTOR = 2;

    public static ReplicaKvCapacity of(ReplicaView r, long defaultGpuTokens) {
        boolean reported = r.metrics() != null && r.metrics().kvCapacityTokens() > 0;
        return new ReplicaKvCapacity(reported ? r.metrics().kvCapacityTokens() : defaultGpuTokens,
                r.metrics() == null ? HostTierMetrics.NONE : r.metrics().hostTier());
    }

    public long hostTierTokens() {
        return hostTier.capacityTokens();
    }

    /**
     * Tokens of working sets admission lets the replica keep resident: the larger tier (what it keeps without
     * recomputing), the host tier counted up to {@link #HOST_TIER_BUDGET_FACTOR} GPU caches.
     */
    public long residentTokens() {
        return Math.max(gpuTokens, Math.min(hostTierTokens(), gpuTokens * HOST_TIER_BUDGET_FACTOR));
    }

    /** Engine milliseconds to bring {@code tokens} of a session back from the host tier to the GPU. */
    public double returnCostEngineMillis(long tokens) {
        return hostTier.loadEngineMillis(tokens);
    }
}
