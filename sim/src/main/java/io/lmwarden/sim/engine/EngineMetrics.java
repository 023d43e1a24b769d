package io.lmwarden.sim.engine;

/** A copy of one engine's metrics at one instant, for the /metrics exposition. */
public record EngineMetrics(int running, int waiting, double kvUsage, int numGpuBlocks, int blockSize,
                            long prefixQueries, long prefixHits, long promptTokens, long generationTokens,
                            long preemptions, long finishedStop, long finishedLength, long finishedAbort,
                            Histogram timeToFirstToken, Histogram queueTime, Histogram prefillTime,
                            Histogram e2eLatency) {
}
