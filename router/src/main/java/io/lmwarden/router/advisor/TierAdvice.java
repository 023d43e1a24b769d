package io.lmwarden.router.advisor;

import java.util.List;

/**
 * What a host-memory KV tier would buy, the {@code advisor} object of {@code /api/replicas}: the share of prompt tokens
 * served from cache now, the share the what-if replay predicts per tier size, and the smallest size within a point of the
 * best any tier could do. Shares are 0..1; sizes per replica, as multiples of each replica's GPU KV cache and, when the
 * engines have told the router their KV bytes per token, in GiB.
 *
 * @param steps             steps replayed and counted (the window's first quarter only warms the model's caches)
 * @param windowSeconds     workload time the counted steps span
 * @param measuredShare     prompt tokens the engines reported cached over the counted steps' prompt tokens; null before any report
 * @param ceilingShare      what a cache that never evicts would serve: every prefix seen before within the window
 * @param gpuEffectiveShare the share of its GPU KV cache the model gives each replica for paused sessions' prefixes, fitted
 *                          so that the model without a tier serves what the engines measured (running requests hold the
 *                          rest); 1 when not fitted
 * @param calibrated        whether {@code gpuEffectiveShare} was fitted (only a pool without a tier can be)
 * @param bytesPerToken     the engines' KV bytes per token, learned from their tier loads; null when unknown, and then
 *                          sizes are in multiples of the GPU KV cache only
 * @param predictions       the predicted share per candidate size: 0, 1×, 2×, 5× the GPU KV cache, and the current tier
 * @param recommendation    the smallest size (in steps of half the GPU KV cache) within a point of {@code ceilingShare};
 *                          null before any step
 * @param message           the advice in one sentence
 * @param replayMillis      the wall time the replay took (its cost, on a worker thread)
 */
public record TierAdvice(int steps, double windowSeconds, Double measuredShare, double ceilingShare, double gpuEffectiveShare,
                         boolean calibrated, Long bytesPerToken, List<Size> predictions, Size recommendation, String message,
                         double replayMillis) {

    /**
     * One tier size per replica and the share of prompt tokens the model predicts it would serve from cache.
     *
     * @param size             its label: {@code 0x}, {@code 1x}, {@code 2x}, {@code 5x}, {@code current}, {@code recommended}
     * @param multipleOfGpuKv  the tier as a multiple of the replica's GPU KV cache
     * @param tokensPerReplica tokens the tier holds per replica (mean over the replicas)
     * @param gibPerReplica    its size in GiB per replica; null while the KV bytes per token are unknown
     */
    public record Size(String size, double multipleOfGpuKv, long tokensPerReplica, Double gibPerReplica, double predictedShare) {
    }

    public static TierAdvice none(String why) {
        return new TierAdvice(0, 0, null, 0, 1, false, null, List.of(), null, why, 0);
    }

    public TierAdvice withReplayMillis(double millis) {
        return new TierAdvice(steps, windowSeconds, measuredShare, ceilingShare, gpuEffectiveShare, calibrated, bytesPerToken,
                predictions, recommendation, message, millis);
    }
}
