package io.lmwarden.router.kvevents;

/**
 * One replica's cache view at a glance: its state; {@code complete} when the view has seen every event since the
 * engine's cache was last empty (its publisher's first batch, or an {@code AllBlocksCleared}), so blocks it does not
 * list are really not there (a partial view misses blocks stored before it began); how much arrived and went wrong
 * (batches, events, sequence gaps, replays, resyncs, unreadable batches, events left out, publisher restarts seen);
 * what the index holds (distinct blocks per tier, engine entries, heap bytes) and when the engine last cleared it.
 */
public record ViewStatus(String viewId, ViewState state, boolean complete, int blockSize,
                         long batches, long events, long gaps, long replays, long resyncs, long unreadableBatches,
                         long skippedEvents, long publisherRestarts, long millisSinceLastBatch,
                         long gpuBlocks, long cpuBlocks, long storageBlocks, int engineEntries, long indexBytes,
                         long clearedAtMillis, IndexCounters index) {

    /** Whether placement may rely on the view instead of its estimates. */
    public boolean usable() {
        return state == ViewState.LIVE;
    }
}
