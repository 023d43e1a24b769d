package io.lmwarden.router.kvevents;

/**
 * What a replica holds of a request's blocks, by the engine's own events, in the order vLLM uses them: the leading
 * blocks in its GPU cache ({@code gpuBlocks}, local prefix-cache hits), then the blocks right after them that the
 * offloading connector can load from host memory ({@code cpuBlocks}) or a further tier ({@code storageBlocks}).
 * {@code firstMissingBlock} is the first block it holds in no tier (-1 when it holds all), and
 * {@code firstMissEvictedAtMillis} when that block last left the GPU, if the view saw it go (-1 otherwise).
 */
public record CachedPrefix(int blockSize, int requestBlocks, int gpuBlocks, int cpuBlocks, int storageBlocks,
                           int firstMissingBlock, long firstMissEvictedAtMillis) {

    public static CachedPrefix none(int blockSize, int requestBlocks) {
        return new CachedPrefix(blockSize, requestBlocks, 0, 0, 0, requestBlocks > 0 ? 0 : -1, -1);
    }

    /** Leading blocks held in any tier. */
    public int residentBlocks() {
        return gpuBlocks + cpuBlocks + storageBlocks;
    }

    /** Tokens of the longest prefix held in any tier, without the engine's cap. */
    public long residentPrefixTokens() {
        return (long) residentBlocks() * blockSize;
    }

    /**
     * The GPU hits the engine will report for a prompt of {@code promptTokens}: vLLM computes at least the last
     * prompt token, so at most {@code (promptTokens - 1) / blockSize} whole blocks hit.
     */
    public long gpuCachedTokens(long promptTokens) {
        return Math.min(gpuBlocks, capBlocks(promptTokens)) * (long) blockSize;
    }

    /** All cached tokens the engine will report (local hits plus what the connector loads), under the same cap. */
    public long cachedTokens(long promptTokens) {
        return Math.min(residentBlocks(), capBlocks(promptTokens)) * (long) blockSize;
    }

    /** The part of {@link #cachedTokens} that comes from host memory or storage rather than the GPU. */
    public long offloadedCachedTokens(long promptTokens) {
        return cachedTokens(promptTokens) - gpuCachedTokens(promptTokens);
    }

    private long capBlocks(long promptTokens) {
        return blockSize <= 0 || promptTokens <= 0 ? 0 : (promptTokens - 1) / blockSize;
    }
}
