package io.lmwarden.router.diagnostics;

/**
 * The rule of thumb from the published measurement: concurrent sessions × their typical context
 * must stay below the pool's total KV cache, or sessions evict each other's prefixes.
 */
public record CapacityAdvice(int activeSessions, int avgContextTokens, long demandTokens, long poolKvTokens,
                             boolean overCapacity, String message, String admission) {

    /** What admission is doing right now. */
    public record AdmissionState(boolean enabled, int residentSessions, int queued, double oldestWaitSeconds) {
    }

    public static CapacityAdvice of(int activeSessions, int avgContextTokens, long poolKvTokens) {
        return of(activeSessions, avgContextTokens, poolKvTokens, new AdmissionState(false, 0, 0, 0));
    }

    public static CapacityAdvice of(int activeSessions, int avgContextTokens, long poolKvTokens, AdmissionState a) {
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
        String admission;
        if (!a.enabled()) {
            admission = over
                    ? "admission is off: every session is placed at once and they evict each other; turn it on (admission: true) to queue newcomers instead"
                    : "admission is off";
        } else if (a.queued() > 0) {
            admission = String.format("admission is holding the working sets of %d resident sessions within the KV budget; %d requests "
                    + "wait in the queue (oldest %.0f s) rather than evict them", a.residentSessions(), a.queued(), a.oldestWaitSeconds());
        } else {
            admission = String.format("admission is on and nothing waits: %d resident sessions fit their replicas' KV budgets", a.residentSessions());
        }
        return new CapacityAdvice(activeSessions, avgContextTokens, demand, poolKvTokens, over, message, admission);
    }
}
