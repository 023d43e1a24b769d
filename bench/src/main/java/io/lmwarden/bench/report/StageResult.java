package io.lmwarden.bench.report;

import java.util.List;
import java.util.Objects;

/**
 * The figures of one policy at one concurrency (one repeat, or the median of repeats), all times in workload time,
 * grouped by what they measure.
 *
 * @param repeat        1-based repeat number; 0 for a median over repeats
 * @param stageSeconds  length of the measurement window, workload seconds
 * @param replicasBusy  mean number of replicas with at least one running request, sampled
 * @param benchCpuCores CPU the whole bench process (load, router and simulator in-process) used in the stage, in
 *                      cores; near the machine's core count the compressed clock is no longer honest
 * @param replicas      per-replica figures of this repeat; empty in medians
 * @param classes       per-session-class figures when the workload has several classes, else empty; in medians each
 *                      figure's median over repeats (errors summed)
 * @param routerSpread  steps per router and sessions that left their replica; totals over repeats in medians
 * @param timeline      the stage over time around the pool's operations (runs with scheduled faults), else
 *                      {@link Timeline#NONE}; in medians only when there is one repeat
 * @param adapters      LoRA figures when sessions ran on adapters, else {@link AdapterFigures#NONE}; in medians each
 *                      figure's median over repeats
 */
public record StageResult(
        String policy,
        int sessions,
        int repeat,
        double stageSeconds,
        Throughput throughput,
        Latency latency,
        SessionTimes sessionTimes,
        CacheFigures cache,
        QueueFigures queue,
        ErrorFigures errors,
        double replicasBusy,
        double benchCpuCores,
        List<ReplicaFigures> replicas,
        List<ClassFigures> classes,
        RouterSpread routerSpread,
        Timeline timeline,
        AdapterFigures adapters) {

    public StageResult(String policy, int sessions, int repeat, double stageSeconds, Throughput throughput, Latency latency,
                       SessionTimes sessionTimes, CacheFigures cache, QueueFigures queue, ErrorFigures errors, double replicasBusy,
                       double benchCpuCores, List<ReplicaFigures> replicas, List<ClassFigures> classes, RouterSpread routerSpread) {
        this(policy, sessions, repeat, stageSeconds, throughput, latency, sessionTimes, cache, queue, errors, replicasBusy,
                benchCpuCores, replicas, classes, routerSpread, Timeline.NONE, AdapterFigures.NONE);
    }

    /** The same figures with the stage's timeline. */
    public StageResult withTimeline(Timeline t) {
        return new StageResult(policy, sessions, repeat, stageSeconds, throughput, latency, sessionTimes, cache, queue, errors,
                replicasBusy, benchCpuCores, replicas, classes, routerSpread, t, adapters);
    }

    /** The same figures with the stage's LoRA figures. */
    public StageResult withAdapters(AdapterFigures a) {
        return new StageResult(policy, sessions, repeat, stageSeconds, throughput, latency, sessionTimes, cache, queue, errors,
                replicasBusy, benchCpuCores, replicas, classes, routerSpread, timeline, a);
    }

    public StageResult {
        Objects.requireNonNull(throughput, "throughput");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(sessionTimes, "sessionTimes");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(errors, "errors");
        replicas = List.copyOf(replicas);
        classes = List.copyOf(classes);
        Objects.requireNonNull(routerSpread, "routerSpread");
        Objects.requireNonNull(timeline, "timeline");
        Objects.requireNonNull(adapters, "adapters");
    }

    /**
     * Output and completions.
     *
     * @param sessionsPerHour          sessions whose last step ended in the stage, per hour
     * @param outputTokensPerMin       output tokens (engine-reported usage) of steps that ended in the stage, per minute
     * @param engineOutputTokensPerMin Δ generation_tokens_total per minute, the engines' own count
     * @param steps                    steps that ended in the stage
     * @param sessionsCompleted        sessions whose last step ended in the stage
     * @param sessionsPerHourFromCalls the completion rate from the calls instead: successful steps per hour ÷ the
     *                                 workload's mean calls per session. In a steady state it is the same rate (every
     *                                 session makes that many calls on average), with far less noise when few sessions
     *                                 end in a window (agents whose sessions last hours); NaN when unknown
     */
    public record Throughput(double sessionsPerHour, double outputTokensPerMin, double engineOutputTokensPerMin, int steps,
                             int sessionsCompleted, double sessionsPerHourFromCalls) {
    }

    /**
     * Client-side time to the first streamed token, workload seconds: over the stage's steps (p50, p95, p99), and over
     * its sessions the slowest step each one had (p95 and the largest of those): an agent waits on its slowest step, so
     * a tail that a few sessions carry shows here where the steps' p95 averages it away.
     */
    public record Latency(double ttfbP50, double ttfbP95, double ttfbP99, double sessionWorstTtfbP95, double sessionWorstTtfbMax) {

        public Latency(double ttfbP50, double ttfbP95) {
            this(ttfbP50, ttfbP95, Double.NaN, Double.NaN, Double.NaN);
        }
    }

    /**
     * How long sessions take. Percentiles count the sessions that completed in the stage from their first step (router
     * queue included); a session that began in an earlier stage counts where it ends, one that joined mid-life (steady
     * start) does not. They are censored when slow sessions are still running: a percentile is marked {@code atLeast}
     * when some session still running at the window's end is already older than it.
     *
     * @param littlesLaw        the mean by Little's law, concurrency ÷ completion rate (completions of every session,
     *                          joined ones included), workload seconds; with no completion, concurrency × window (a lower
     *                          bound, {@code littlesLawAtLeast})
     * @param unfinished        sessions still running at the window's end
     * @param unfinishedAgeP50  their age (since their first request in the run) at the window's end, median
     * @param unfinishedAgeMax  and the oldest
     * @param littlesLawFromCalls Little's law with the completion rate from the calls ({@link Throughput#sessionsPerHourFromCalls})
     */
    public record SessionTimes(double p50, double p95, boolean p50AtLeast, boolean p95AtLeast, double littlesLaw,
                               boolean littlesLawAtLeast, int unfinished, double unfinishedAgeP50, double unfinishedAgeMax,
                               double littlesLawFromCalls) {
    }

    /**
     * Prefix cache and placement.
     *
     * @param prefixHitPct    Σ Δ prefix_cache_hits / Σ Δ prefix_cache_queries over all replicas, percent
     * @param stayedPct       follow-up steps that went to the replica of their previous step, percent (NaN if unknown)
     * @param oracleHitPct    the workload's hit-rate bound under perfect placement without eviction
     * @param clientCachedPct cached share of prompt tokens from the engines' per-request usage, percent (NaN if not reported)
     */
    public record CacheFigures(double prefixHitPct, double stayedPct, double oracleHitPct, double clientCachedPct) {
    }

    /**
     * The router's admission queue.
     *
     * @param waitP50            among the stage's steps that waited in the queue, the wait, workload seconds
     * @param waitMax            the longest of those waits
     * @param admitted           steps the router let through (every step not rejected as overloaded)
     * @param queued             steps that waited in the router's queue before they were admitted
     * @param rejected           steps the router turned away as overloaded (429 / 529)
     * @param rejectedInProgress of those, steps of sessions the router already knew (not the session's first step in
     *                           the run): what an agent in the middle of its work was told; the rest are newcomers
     */
    public record QueueFigures(double waitP50, double waitP95, double waitMax, int admitted, int queued, int rejected,
                               int rejectedInProgress) {

        /** Rejected first steps: newcomers turned away. */
        public int rejectedFirstSteps() {
            return rejected - rejectedInProgress;
        }
    }

    /**
     * Failed steps.
     *
     * @param count  HTTP errors, stream errors, cut-off streams
     * @param causes failed steps by cause ("HTTP 503", "connection refused", "stream cut", …); summed over repeats in medians
     */
    public record ErrorFigures(int count, java.util.Map<String, Integer> causes) {
        public ErrorFigures {
            causes = java.util.Map.copyOf(causes);
        }
    }
}
