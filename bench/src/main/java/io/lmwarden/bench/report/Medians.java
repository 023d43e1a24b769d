package io.lmwarden.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The median over repeats of every figure, per policy and stage. Errors, rejections and unfinished sessions are summed
 * instead: a failure in one repeat must not vanish in a median.
 */
public final class Medians {

    private Medians() {
    }

    public static List<StageResult> of(List<StageResult> perRepeat) {
        Map<String, List<StageResult>> groups = new LinkedHashMap<>();
        for (StageResult r : perRepeat) {
            groups.computeIfAbsent(r.policy() + "\u0000" + r.sessions(), k -> new ArrayList<>()).add(r);
        }
        List<StageResult> out = new ArrayList<>();
        for (List<StageResult> g : groups.values()) {
            StageResult first = g.get(0);
            out.add(new StageResult(first.policy(), first.sessions(), 0,
                    median(g, StageResult::stageSeconds),
                    new StageResult.Throughput(
                            median(g, r -> r.throughput().sessionsPerHour()),
                            median(g, r -> r.throughput().outputTokensPerMin()),
                            median(g, r -> r.throughput().engineOutputTokensPerMin()),
                            (int) Math.round(median(g, r -> r.throughput().steps())),
                            (int) Math.round(median(g, r -> r.throughput().sessionsCompleted())),
                            median(g, r -> r.throughput().sessionsPerHourFromCalls())),
                    new StageResult.Latency(median(g, r -> r.latency().ttfbP50()), median(g, r -> r.latency().ttfbP95()),
                            median(g, r -> r.latency().ttfbP99()), median(g, r -> r.latency().sessionWorstTtfbP95()),
                            median(g, r -> r.latency().sessionWorstTtfbMax())),
                    sessionTimeMedians(g),
                    new StageResult.CacheFigures(
                            median(g, r -> r.cache().prefixHitPct()),
                            median(g, r -> r.cache().stayedPct()),
                            median(g, r -> r.cache().oracleHitPct()),
                            median(g, r -> r.cache().clientCachedPct())),
                    new StageResult.QueueFigures(
                            median(g, r -> r.queue().waitP50()),
                            median(g, r -> r.queue().waitP95()),
                            median(g, r -> r.queue().waitMax()),
                            (int) Math.round(median(g, r -> r.queue().admitted())),
                            (int) Math.round(median(g, r -> r.queue().queued())),
                            g.stream().mapToInt(r -> r.queue().rejected()).sum(),
                            g.stream().mapToInt(r -> r.queue().rejectedInProgress()).sum()),
                    new StageResult.ErrorFigures(g.stream().mapToInt(r -> r.errors().count()).sum(), summedCauses(g)),
                    median(g, StageResult::replicasBusy),
                    median(g, StageResult::benchCpuCores),
                    List.of(),
                    classMedians(g),
                    RouterSpread.sum(g.stream().map(StageResult::routerSpread).toList())).withAdapters(adapterMedians(g)));
        }
        return out;
    }

    /**
     * Medians of the session-time figures; a median is a lower bound ("at least") when any repeat's figure was one, and
     * unfinished sessions are summed (like errors, they must not vanish in a median).
     */
    private static StageResult.SessionTimes sessionTimeMedians(List<StageResult> g) {
        return new StageResult.SessionTimes(
                median(g, r -> r.sessionTimes().p50()),
                median(g, r -> r.sessionTimes().p95()),
                g.stream().anyMatch(r -> r.sessionTimes().p50AtLeast()),
                g.stream().anyMatch(r -> r.sessionTimes().p95AtLeast()),
                median(g, r -> r.sessionTimes().littlesLaw()),
                g.stream().anyMatch(r -> r.sessionTimes().littlesLawAtLeast()),
                g.stream().mapToInt(r -> r.sessionTimes().unfinished()).sum(),
                median(g, r -> r.sessionTimes().unfinishedAgeP50()),
                g.stream().mapToDouble(r -> r.sessionTimes().unfinishedAgeMax()).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN),
                median(g, r -> r.sessionTimes().littlesLawFromCalls()));
    }

    /** Per class: each figure's median over the repeats that had the class; errors summed, as for the whole stage. */
    private static List<ClassFigures> classMedians(List<StageResult> group) {
        Map<String, List<ClassFigures>> byName = new LinkedHashMap<>();
        group.forEach(r -> r.classes().forEach(c -> byName.computeIfAbsent(c.name(), k -> new ArrayList<>()).add(c)));
        List<ClassFigures> out = new ArrayList<>();
        byName.forEach((name, cs) -> out.add(new ClassFigures(name,
                (int) Math.round(medianOf(cs, ClassFigures::steps)),
                cs.stream().mapToInt(ClassFigures::errors).sum(),
                medianOf(cs, ClassFigures::ttfbP50), medianOf(cs, ClassFigures::ttfbP95),
                medianOf(cs, ClassFigures::cachedPct), medianOf(cs, ClassFigures::stayedPct))));
        return out;
    }

    /** Each LoRA figure's median over the repeats that had adapter sessions; none when no repeat had them. */
    private static AdapterFigures adapterMedians(List<StageResult> group) {
        List<AdapterFigures> as = group.stream().map(StageResult::adapters).filter(AdapterFigures::present).toList();
        if (as.isEmpty()) {
            return AdapterFigures.NONE;
        }
        return new AdapterFigures((int) Math.round(medianOf(as, AdapterFigures::steps)),
                (int) Math.round(medianOf(as, AdapterFigures::adapterSteps)), medianOf(as, AdapterFigures::slotWaits),
                medianOf(as, AdapterFigures::diskLoads), medianOf(as, AdapterFigures::adapterCachedPct),
                medianOf(as, AdapterFigures::baseCachedPct), medianOf(as, AdapterFigures::adapterOraclePct),
                medianOf(as, AdapterFigures::baseOraclePct));
    }

    private static java.util.Map<String, Integer> summedCauses(List<StageResult> group) {
        java.util.Map<String, Integer> sum = new java.util.TreeMap<>();
        group.forEach(r -> r.errors().causes().forEach((cause, n) -> sum.merge(cause, n, Integer::sum)));
        return sum;
    }

    static double median(List<StageResult> group, ToDoubleFunction<StageResult> figure) {
        return medianOf(group, figure);
    }

    private static <T> double medianOf(List<T> group, ToDoubleFunction<T> figure) {
        double[] values = group.stream().mapToDouble(figure).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    /** Policies in first-seen order. */
    public static List<String> policies(List<StageResult> results) {
        return results.stream().map(StageResult::policy).distinct().toList();
    }

    /** Stages in first-seen order. */
    public static List<Integer> stages(List<StageResult> results) {
        return results.stream().map(StageResult::sessions).distinct().toList();
    }

    static StageResult find(List<StageResult> results, String policy, int sessions) {
        return results.stream().filter(r -> r.policy().equals(policy) && r.sessions() == sessions).findFirst().orElse(null);
    }
}
