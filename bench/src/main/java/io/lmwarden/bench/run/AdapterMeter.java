package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.report.AdapterFigures;

import java.util.List;

/** A stage's LoRA figures from its steps and the engines' adapter counters; none when no step ran on an adapter. */
final class AdapterMeter {

    private AdapterMeter() {
    }

    static AdapterFigures measure(List<StepRecord> steps, List<ReplicaReading> before, List<ReplicaReading> after) {
        int adapterSteps = (int) steps.stream().filter(r -> r.adapter() != null).count();
        if (adapterSteps == 0) {
            return AdapterFigures.NONE;
        }
        PromptShare adapter = new PromptShare();
        PromptShare base = new PromptShare();
        steps.stream().filter(StepRecord::ok).forEach(r -> (r.adapter() != null ? adapter : base).add(r));
        return new AdapterFigures(steps.size(), adapterSteps,
                StageMeter.delta(before, after, ReplicaReading::loraSlotWaits),
                StageMeter.delta(before, after, ReplicaReading::loraDiskLoads),
                adapter.cachedPct(), base.cachedPct(), adapter.oraclePct(), base.oraclePct());
    }

    /** Prompt tokens of one group of steps: cached (where the engine reported usage) and the oracle's bound. */
    private static final class PromptShare {
        long cached;
        long promptWithUsage;
        long oracle;
        long prompt;

        void add(StepRecord r) {
            oracle += r.oracleTokens();
            prompt += r.promptTokens();
            if (r.cachedTokens() >= 0) {
                cached += r.cachedTokens();
                promptWithUsage += r.promptTokens();
            }
        }

        double cachedPct() {
            return promptWithUsage == 0 ? Double.NaN : 100.0 * cached / promptWithUsage;
        }

        double oraclePct() {
            return prompt == 0 ? Double.NaN : 100.0 * oracle / prompt;
        }
    }
}
