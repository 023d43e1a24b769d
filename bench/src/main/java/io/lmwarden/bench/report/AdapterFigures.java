package io.lmwarden.bench.report;

/**
 * A stage's LoRA figures, when sessions ran on adapters (results.json {@code adapters}, report.md's adapter table).
 * Slot waits and loads are Δ of the engines' counters over the window (the simulated engines, read in-process; NaN for
 * a pool whose metrics lack them, as vLLM's do). Hits are the cached share of prompt tokens by the engines' per-request
 * usage, split by the sessions' model, since the engines' prefix counters are not per adapter.
 *
 * @param steps            the stage's steps (all sessions')
 * @param adapterSteps     of those, steps of sessions on an adapter
 * @param slotWaits        requests that waited at least one engine step for an adapter slot (max_loras)
 * @param diskLoads        adapters loaded from disk (not in CPU memory) before a step that needed them
 * @param adapterCachedPct cached share of adapter sessions' prompt tokens, percent (NaN if unknown)
 * @param baseCachedPct    the same for base-model sessions
 * @param adapterOraclePct what perfect placement without eviction could serve of adapter sessions' prompts, percent
 * @param baseOraclePct    the same for base-model sessions
 */
public record AdapterFigures(int steps, int adapterSteps, double slotWaits, double diskLoads, double adapterCachedPct,
                             double baseCachedPct, double adapterOraclePct, double baseOraclePct) {

    public static final AdapterFigures NONE = new AdapterFigures(0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN);

    public boolean present() {
        return adapterSteps > 0;
    }

    /** Steps that waited for a slot as a share of all the stage's steps, percent (the goal figure). */
    public double slotWaitPct() {
        return steps == 0 ? Double.NaN : 100.0 * slotWaits / steps;
    }

    /** Steps that waited for a slot as a share of the adapter sessions' steps, percent. */
    public double slotWaitPctOfAdapterSteps() {
        return adapterSteps == 0 ? Double.NaN : 100.0 * slotWaits / adapterSteps;
    }

    /** Adapter sessions' hits minus base-model sessions', percentage points. */
    public double hitGapPoints() {
        return adapterCachedPct - baseCachedPct;
    }
}
