package io.lmwarden.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The median over repeats of every figure, per policy and stage. Errors are summed instead: a failure
 * in one repeat must not vanish in a median.
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
                    median(g, StageResult::sessionsPerHour),
                    median(g, StageResult::outputTokensPerMin),
                    median(g, StageResult::ttfbP50),
                    median(g, StageResult::ttfbP95),
                    median(g, StageResult::replicasBusy),
                    median(g, StageResult::prefixHitPct),
                    median(g, StageResult::stayedPct),
                    median(g, StageResult::oracleHitPct),
                    g.stream().mapToInt(StageResult::errors).sum(),
                    (int) Math.round(median(g, StageResult::steps)),
                    (int) Math.round(median(g, StageResult::sessionsCompleted)),
                    median(g, StageResult::clientCachedPct),
                    median(g, StageResult::engineOutputTokensPerMin),
                    median(g, StageResult::benchCpuCores),
                    median(g, StageResult::sessionTimeP50),
                    median(g, StageResult::sessionTimeP95),
                    median(g, StageResult::queueWaitP50),
                    median(g, StageResult::queueWaitP95),
                    median(g, StageResult::queueWaitMax),
                    (int) Math.round(median(g, StageResult::admitted)),
                    (int) Math.round(median(g, StageResult::queued)),
                    g.stream().mapToInt(StageResult::rejected).sum(),
                    summedCauses(g),
                    List.of(),
                    classMedians(g)).withRouterSpread(RouterSpread.sum(g.stream().map(StageResult::routerSpread).toList())));
        }
        return out;
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

    private static java.util.Map<String, Integer> summedCauses(List<StageResult> group) {
        java.util.Map<String, Integer> sum = new java.util.TreeMap<>();
        group.forEach(r -> r.errorCauses().forEach((cause, n) -> sum.merge(cause, n, Integer::sum)));
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
