package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.report.ClassFigures;
import io.lmwarden.bench.report.ReplicaFigures;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.router.placement.policy.PassthroughPolicy;
import org.HdrHistogram.Histogram;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turns one stage's finished steps, counter snapshots and busy samples into the published columns. */
public final class StageMeter {

    private StageMeter() {
    }

    /** The stage's figures from what its window collected. */
    public static StageResult measure(StageWindow w, TimeScale clock) {
        Histogram ttfb = new Histogram(3_600_000_000L, 3);
        java.util.Map<Integer, Long> worstPerSession = new java.util.HashMap<>();
        Histogram sessionTime = new Histogram(36_000_000_000L, 3);
        Histogram queueWait = new Histogram(36_000_000_000L, 3);
        int admitted = 0;
        int queued = 0;
        int rejected = 0;
        int rejectedInProgress = 0;
        long outputTokens = 0;
        int completedSessions = 0;
        int errors = 0;
        int followUps = 0;
        int stayed = 0;
        long oracleTokens = 0;
        long promptTokens = 0;
        long cachedTokens = 0;
        long promptTokensWithUsage = 0;
        int okSteps = 0;
        for (StepRecord r : w.steps()) {
            if (r.rejected()) {
                rejected++;
                rejectedInProgress += r.inProgress() ? 1 : 0;
            } else {
                admitted++;
            }
            if (r.queueWaitNanos() > 0) {
                queued++;
                queueWait.recordValue(clamp(Math.round(clock.workloadSeconds(r.queueWaitNanos()) * 1e6), queueWait));
            }
            if (!r.ok()) {
                errors++;
                continue;
            }
            okSteps++;
            long micros = Math.max(1, Math.min(Math.round(clock.workloadSeconds(r.firstTokenNanos() - r.sentNanos()) * 1e6),
                    ttfb.getHighestTrackableValue()));
            ttfb.recordValue(micros);
            worstPerSession.merge(r.session(), micros, Math::max);
            outputTokens += r.outputTokens();
            if (r.lastOfSession()) {
                completedSessions++;
                if (!r.joined()) {
                    sessionTime.recordValue(clamp(Math.round(clock.workloadSeconds(r.endNanos() - r.sessionStartNanos()) * 1e6),
                            sessionTime));
                }
            }
            if (r.stayed() != null) {
                followUps++;
                if (r.stayed()) {
                    stayed++;
                }
            }
            oracleTokens += r.oracleTokens();
            promptTokens += r.promptTokens();
            if (r.cachedTokens() >= 0) {
                cachedTokens += r.cachedTokens();
                promptTokensWithUsage += r.promptTokens();
            }
        }
        double stageSeconds = w.stageSeconds();
        double minutes = stageSeconds / 60.0;
        boolean anyOk = ttfb.getTotalCount() > 0;
        double fromCalls = okSteps / w.callsPerSession() / (stageSeconds / 3600.0);
        return new StageResult(w.policy(), w.sessions(), w.repeat(), stageSeconds,
                new StageResult.Throughput(completedSessions / (stageSeconds / 3600.0), outputTokens / minutes,
                        delta(w.before(), w.after(), ReplicaReading::generationTokens) / minutes, w.steps().size(), completedSessions,
                        fromCalls),
                latency(ttfb, worstPerSession.values()),
                sessionTimes(sessionTime, completedSessions, fromCalls, w),
                new StageResult.CacheFigures(hitPct(w.before(), w.after()),
                        followUps == 0 || enginePickedOutOfSight(w.policy()) ? Double.NaN : 100.0 * stayed / followUps,
                        promptTokens == 0 ? Double.NaN : 100.0 * oracleTokens / promptTokens,
                        promptTokensWithUsage == 0 ? Double.NaN : 100.0 * cachedTokens / promptTokensWithUsage),
                new StageResult.QueueFigures(percentileSeconds(queueWait, 50), percentileSeconds(queueWait, 95),
                        queueWait.getTotalCount() > 0 ? queueWait.getMaxValue() / 1e6 : Double.NaN, admitted, queued, rejected,
                        rejectedInProgress),
                new StageResult.ErrorFigures(errors, ErrorCause.count(w.steps())),
                w.busySamples().isEmpty() ? Double.NaN : w.busySamples().stream().mapToInt(Integer::intValue).average().orElse(Double.NaN),
                w.benchCpuCores(),
                perReplica(clock, w.steps(), w.before(), w.after(), w.busyShare()),
                perClass(w.policy(), clock, w.steps()),
                RouterSpreadMeter.measure(w.steps(), w.routers()))
                .withAdapters(AdapterMeter.measure(w.steps(), w.before(), w.after()));
    }

    /**
     * Percentiles of the sessions that completed from their first step, each marked when a session still running is
     * older than it; Little's law's mean from the concurrency and the completions.
     */
    static StageResult.SessionTimes sessionTimes(Histogram completed, int completions, double perHourFromCalls, StageWindow w) {
        double p50 = percentileSeconds(completed, 50);
        double p95 = percentileSeconds(completed, 95);
        double oldest = w.unfinishedAges().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        double[] ages = w.unfinishedAges().stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double ageP50 = ages.length == 0 ? Double.NaN : ages[(ages.length - 1) / 2];
        double littlesLaw = w.concurrency() * w.stageSeconds() / Math.max(1, completions);
        return new StageResult.SessionTimes(p50, p95, oldest > p50, oldest > p95, littlesLaw, completions == 0,
                ages.length, ageP50, oldest, perHourFromCalls > 0 ? w.concurrency() * 3600 / perHourFromCalls : Double.NaN);
    }

    /** Per session class, in first-seen order; empty when every step belongs to one class. */
    static List<ClassFigures> perClass(String policy, TimeScale clock, List<StepRecord> steps) {
        Map<String, List<StepRecord>> byClass = new java.util.LinkedHashMap<>();
        steps.forEach(r -> byClass.computeIfAbsent(r.sessionClass(), k -> new java.util.ArrayList<>()).add(r));
        if (byClass.size() < 2) {
            return List.of();
        }
        List<ClassFigures> out = new java.util.ArrayList<>();
        byClass.forEach((name, own) -> {
            Histogram ttfb = new Histogram(3_600_000_000L, 3);
            int errors = 0;
            int followUps = 0;
            int stayed = 0;
            long cached = 0;
            long prompt = 0;
            for (StepRecord r : own) {
                if (!r.ok()) {
                    errors++;
                    continue;
                }
                ttfb.recordValue(clamp(Math.round(clock.workloadSeconds(r.firstTokenNanos() - r.sentNanos()) * 1e6), ttfb));
                if (r.stayed() != null) {
                    followUps++;
                    stayed += r.stayed() ? 1 : 0;
                }
                if (r.cachedTokens() >= 0) {
                    cached += r.cachedTokens();
                    prompt += r.promptTokens();
                }
            }
            out.add(new ClassFigures(name, own.size(), errors, percentileSeconds(ttfb, 50), percentileSeconds(ttfb, 95),
                    prompt == 0 ? Double.NaN : 100.0 * cached / prompt,
                    followUps == 0 || enginePickedOutOfSight(policy) ? Double.NaN : 100.0 * stayed / followUps));
        });
        return out;
    }

    static List<ReplicaFigures> perReplica(TimeScale clock, List<StepRecord> steps, List<ReplicaReading> before,
                                           List<ReplicaReading> after, Map<String, Double> busyShare) {
        Map<String, ReplicaReading> start = new HashMap<>();
        before.forEach(r -> start.put(r.id(), r));
        List<ReplicaFigures> out = new java.util.ArrayList<>();
        for (ReplicaReading end : after) {
            Histogram ttfb = new Histogram(3_600_000_000L, 3);
            int requests = 0;
            int errors = 0;
            for (StepRecord r : steps) {
                if (!end.id().equals(r.replica())) {
                    continue;
                }
                requests++;
                if (!r.ok()) {
                    errors++;
                    continue;
                }
                long micros = Math.round(clock.workloadSeconds(r.firstTokenNanos() - r.sentNanos()) * 1e6);
                ttfb.recordValue(Math.max(1, Math.min(micros, ttfb.getHighestTrackableValue())));
            }
            double hitPct = hitPct(start.containsKey(end.id()) ? List.of(start.get(end.id())) : List.of(), List.of(end));
            out.add(new ReplicaFigures(end.id(), requests, errors, ttfb.getTotalCount() > 0 ? ttfb.getValueAtPercentile(50) / 1e6 : Double.NaN,
                    hitPct, busyShare.containsKey(end.id()) ? 100.0 * busyShare.get(end.id()) : Double.NaN));
        }
        return out;
    }

    private static long clamp(long micros, Histogram h) {
        return Math.max(1, Math.min(micros, h.getHighestTrackableValue()));
    }

    /** The steps' TTFB percentiles, and the sessions' slowest steps' (microseconds in, seconds out); NaN without steps. */
    static StageResult.Latency latency(Histogram ttfb, java.util.Collection<Long> worstPerSession) {
        if (ttfb.getTotalCount() == 0) {
            return new StageResult.Latency(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        Histogram worst = new Histogram(ttfb.getHighestTrackableValue(), 3);
        worstPerSession.forEach(worst::recordValue);
        return new StageResult.Latency(ttfb.getValueAtPercentile(50) / 1e6, ttfb.getValueAtPercentile(95) / 1e6,
                ttfb.getValueAtPercentile(99) / 1e6, worst.getValueAtPercentile(95) / 1e6, worst.getMaxValue() / 1e6);
    }

    private static double percentileSeconds(Histogram h, double p) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(p) / 1e6;
    }

    /** Token-weighted over all replicas: never an average of per-replica percentages. */
    static double hitPct(List<ReplicaReading> before, List<ReplicaReading> after) {
        double queries = delta(before, after, ReplicaReading::prefixCacheQueries);
        double hits = delta(before, after, ReplicaReading::prefixCacheHits);
        return queries <= 0 ? Double.NaN : 100.0 * hits / queries;
    }

    /** Σ over replicas of a counter's increase; a counter that went down was reset and counts from zero. */
    static double delta(List<ReplicaReading> before, List<ReplicaReading> after,
                        java.util.function.ToDoubleFunction<ReplicaReading> counter) {
        Map<String, Double> start = new HashMap<>();
        for (ReplicaReading r : before) {
            start.put(r.id(), counter.applyAsDouble(r));
        }
        double sum = 0;
        for (ReplicaReading r : after) {
            double now = counter.applyAsDouble(r);
            double then = start.getOrDefault(r.id(), 0.0);
            sum += now >= then ? now - then : now;
        }
        return sum;
    }

    /** Replicas with at least one running request. */
    public static int busy(List<ReplicaReading> readings) {
        int busy = 0;
        for (ReplicaReading r : readings) {
            if (r.running() > 0) {
                busy++;
            }
        }
        return busy;
    }

    /**
     * Under {@code passthrough} a data-parallel server's own balancer picks the engine and the router only
     * names the endpoint, so whether a step stayed on its engine is unknown.
     */
    static boolean enginePickedOutOfSight(String variant) {
        return variant.equals(PassthroughPolicy.NAME) || variant.startsWith(PassthroughPolicy.NAME + "@");
    }
}
