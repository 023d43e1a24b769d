package io.lmwarden.bench.report;

/**
 * One session class's share of a stage, when a workload file has several classes (results.json {@code classes},
 * the per-class table of report.md). Engine counters are not per class, so the hit rate here is the cached share of
 * the class's prompt tokens from the engines' per-request usage ({@code cached_tokens} / {@code cache_read_input_tokens}).
 *
 * @param steps     the class's steps that ended in the stage (failed ones included)
 * @param errors    of those, the failed ones
 * @param ttfbP50   median TTFB of its successful steps, workload seconds (NaN if none)
 * @param cachedPct cached share of its prompt tokens, percent (NaN if the engines reported no usage)
 * @param stayedPct its follow-up steps served by the replica of their previous step, percent (NaN if unknown)
 */
public record ClassFigures(String name, int steps, int errors, double ttfbP50, double ttfbP95, double cachedPct,
                           double stayedPct) {
}
