package io.lmwarden.router.diagnostics;

/**
 * The rule of thumb from the published measurement: what the active sessions need cached (their
 * distinct context, a shared system prompt once) must stay below the pool's total KV cache, or
 * sessions evict each other's prefixes.
 *
 * @param avgContextTokens distinct tokens per active session (shared parts spread over the sessions that share them)
 */
public record CapacityAdvice(int activeSessions, int avgContextTokens, long demandTokens, long poolKvTokens,
                             boolean overCapacity, String message, String admission) {

    /** What admission is doing right now. */
    public record AdmissionState(boolean enabled, int residentSessions, int queued, double oldestWaitSeconds) {
    }

    public static CapacityAdvice of(LiveWorkingSets.Demand demand, long poolKvTokens) {
        return of(demand, poolKvTokens, new AdmissionState(false, 0, 0, 0));
    }

    public static CapacityAdvice of(LiveWorkingSets.Demand demand, long poolKvTokens, AdmissionState a) {
        int active = demand.activeSessions();
        long tokens = demand.distinctTokens();
        int avg = active == 0 ? 0 : (int) (tokens / active);
        boolean over = poolKvTokens > 0 && tokens > poolKvTokens;
        String message;
        if (poolKvTokens <= 0) {
            message = "pool KV capacity unknown (engines do not publish vllm:cache_config_info)";
        } else if (over) {
            message = String.format("%d active sessions need %,d distinct tokens of context > %,d tokens of KV cache in "
                    + "the pool: sessions evict each other's prefixes; add replicas or lower concurrency", active, tokens, poolKvTokens);
        } else {
            message = String.format("%d active sessions need %,d distinct tokens of %,d KV tokens (%.0f%%)",
                    active, tokens, poolKvTokens, 100.0 * tokens / poolKvTokens);
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
        return new CapacityAdvice(active, avg, tokens, poolKvTokens, over, message, admission);
    }
}
