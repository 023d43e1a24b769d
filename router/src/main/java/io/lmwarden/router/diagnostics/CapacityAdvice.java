package io.lmwarden.router.diagnostics;

/**
 * The rule of thumb from the published measurement: concurrent sessions × their typical context
 * must stay below the pool's total KV cache, or sessions evict each other's prefixes.
 */
public record CapacityAdvice(int activeSessions, int avgContextTokens, long demandTokens, long poolKvTokens,
                             boolean overCapacity, String message) {

    public static CapacityAdvice of(int activeSessions, int avgContextTokens, long poolKvTokens) {
        long demand = (long) activeSessions * avgContextTokens;
        boolean over = poolKvTokens > 0 && demand > poolKvTokens;
        String message;
        if (poolKvTokens <= 0) {
            message = "pool KV capacity unknown (engines do not publish vllm:cache_config_info)";
        } else if (over) {
            message = String.format("%d active sessions × %,d tokens average context = %,d tokens > %,d tokens of KV cache in "
                            + "the pool: sessions evict each other's prefixes; add replicas or lower concurrency",
                    activeSessions, avgContextTokens, demand, poolKvTokens);
        } else {
            message = String.format("%d active sessions × %,d tokens = %,d of %,d KV tokens (%.0f%%)",
                    activeSessions, avgContextTokens, demand, poolKvTokens, 100.0 * demand / poolKvTokens);
        }
        return new CapacityAdvice(activeSessions, avgContextTokens, demand, poolKvTokens, over, message);
    }
}
