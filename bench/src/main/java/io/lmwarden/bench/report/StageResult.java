package io.lmwarden.bench.report;

/**
 * The published columns for one policy at one concurrency (one repeat, or the median of repeats),
 * all times in workload time.
 *
 * @param repeat              1-based repeat number; 0 for a median over repeats
 * @param replicasBusy        mean number of replicas with at least one running request, sampled
 * @param prefixHitPct        Σ Δ prefix_cache_hits / Σ Δ prefix_cache_queries over all replicas, percent
 * @param stayedPct           follow-up steps that went to the replica of their previous step, percent (NaN if unknown)
 * @param oracleHitPct        the workload's hit-rate bound under perfect placement without eviction
 * @param errors              failed steps (HTTP errors, stream errors, cut-off streams)
 * @param steps               steps that ended in the stage
 * @param sessionsCompleted   sessions whose last step ended in the stage
 * @param clientCachedPct     cached share of prompt tokens from the engines' per-request usage, percent (NaN if not reported)
 * @param engineOutputTokensPerMin Δ generation_tokens_total per minute, the engines' own count
 * @param benchCpuCores       CPU the whole bench process (load, router and simulator in-process) used in the stage,
 *                            in cores; near the machine's core count the compressed clock is no longer honest
 * @param sessionTimeP50      sessions that completed in the stage: first step sent → last step ended (router queue
 *                            included), workload seconds; a session that began in an earlier stage counts here too
 * @param queueWaitP50        among the stage's steps that waited in the router's admission queue, the wait in workload seconds
 * @param queueWaitMax        the longest of those waits
 * @param admitted            steps the router let through (every step not rejected as overloaded)
 * @param queued              steps that waited in the router's queue before they were admitted
 * @param rejected            steps the router turned away as overloaded (429 / 529)
 * @param errorCauses         failed steps by cause ("HTTP 503", "connection refused", "stream cut", …); summed over repeats in medians
 * @param replicas            per-replica figures of this repeat; empty in medians
 * @param classes             per-session-class figures when the workload has several classes, else empty; in medians
 *                            each figure's median over repeats (errors summed)
 * @param routerSpread        steps per router and sessions that left their replica; totals over repeats in medians
 */
public record StageResult(
        String policy,
        int sessions,
        int repeat,
        double stageSeconds,
        double sessionsPerHour,
        double outputTokensPerMin,
        double ttfbP50,
        double ttfbP95,
        double replicasBusy,
        double prefixHitPct,
        double stayedPct,
        double oracleHitPct,
        int errors,
        int steps,
        int sessionsCompleted,
        double clientCachedPct,
        double engineOutputTokensPerMin,
        double benchCpuCores,
        double sessionTimeP50,
        double sessionTimeP95,
        double queueWaitP50,
        double queueWaitP95,
        double queueWaitMax,
        int admitted,
        int queued,
        int rejected,
        java.util.Map<String, Integer> errorCauses,
        java.util.List<ReplicaFigures> replicas,
        java.util.List<ClassFigures> classes,
        RouterSpread routerSpread) {

    public StageResult {
        errorCauses = java.util.Map.copyOf(errorCauses);
        replicas = java.util.List.copyOf(replicas);
        classes = java.util.List.copyOf(classes);
        java.util.Objects.requireNonNull(routerSpread, "routerSpread");
    }

    /** A stage without router figures ({@link RouterSpread#NONE}); {@link #withRouterSpread} adds them. */
    public StageResult(String policy, int sessions, int repeat, double stageSeconds, double sessionsPerHour,
                       double outputTokensPerMin, double ttfbP50, double ttfbP95, double replicasBusy, double prefixHitPct,
                       double stayedPct, double oracleHitPct, int errors, int steps, int sessionsCompleted,
                       double clientCachedPct, double engineOutputTokensPerMin, double benchCpuCores,
                       double sessionTimeP50, double sessionTimeP95, double queueWaitP50, double queueWaitP95,
                       double queueWaitMax, int admitted, int queued, int rejected,
                       java.util.Map<String, Integer> errorCauses, java.util.List<ReplicaFigures> replicas,
                       java.util.List<ClassFigures> classes) {
        this(policy, sessions, repeat, stageSeconds, sessionsPerHour, outputTokensPerMin, ttfbP50, ttfbP95, replicasBusy,
                prefixHitPct, stayedPct, oracleHitPct, errors, steps, sessionsCompleted, clientCachedPct,
                engineOutputTokensPerMin, benchCpuCores, sessionTimeP50, sessionTimeP95, queueWaitP50, queueWaitP95,
                queueWaitMax, admitted, queued, rejected, errorCauses, replicas, classes, RouterSpread.NONE);
    }

    public StageResult withRouterSpread(RouterSpread spread) {
        return new StageResult(policy, sessions, repeat, stageSeconds, sessionsPerHour, outputTokensPerMin, ttfbP50, ttfbP95,
                replicasBusy, prefixHitPct, stayedPct, oracleHitPct, errors, steps, sessionsCompleted, clientCachedPct,
                engineOutputTokensPerMin, benchCpuCores, sessionTimeP50, sessionTimeP95, queueWaitP50, queueWaitP95,
                queueWaitMax, admitted, queued, rejected, errorCauses, replicas, classes, spread);
    }
}
