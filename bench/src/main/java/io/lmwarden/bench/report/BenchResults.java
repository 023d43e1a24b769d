package io.lmwarden.bench.report;

import io.lmwarden.bench.settings.BenchSettings;

import java.time.Instant;
import java.util.List;

/**
 * Everything a run produced: per-repeat figures and, per policy and stage, their median.
 *
 * @param machine  a note on the machine's load while measuring (load averages, cores)
 */
public record BenchResults(
        BenchSettings settings,
        String target,
        String counterSource,
        String model,
        Instant started,
        Instant finished,
        String machine,
        List<StageResult> perRepeat,
        List<StageResult> medians) {
}
