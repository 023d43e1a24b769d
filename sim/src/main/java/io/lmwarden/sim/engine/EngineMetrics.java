package io.lmwarden.sim.engine;

/**
 * A copy of one engine's metrics at one instant, for the /metrics exposition.
 *
 * @param maxModelLen the engine's max_model_len: vLLM's token-count histograms have 1-2-5 buckets up to it
 */
public record EngineMetrics(int running, int waiting, double kvUsage, int numGpuBlocks, int blockSize, int maxModelLen,
                            long prefixQueries, long prefixHits, long promptTokens, long generationTokens,
                            long preemptions, long finishedStop, long finishedLength, long finishedAbort,
                            Histogram timeToFirstToken, Histogram interTokenLatency, Histogram iterationTokens,
                            Histogram queueTime, Histogram prefillTime, Histogram decodeTime, Histogram e2eLatency,
                            Histogram requestPromptTokens, Histogram requestGenerationTokens) {
}
