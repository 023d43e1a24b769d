package io.lmwarden.sim;

/** One consistent view of an engine's state and counters (token counts, like vLLM's metrics). */
public record EngineSnapshot(int running, int waiting, double kvUsage, long prefixQueries, long prefixHits,
                             long promptTokens, long generationTokens, long preemptions) {
}
