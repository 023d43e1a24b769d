package io.lmwarden.sim.engine;

import io.lmwarden.sim.SimProfile;

/**
 * The engine's counters that vLLM keeps beside the local prefix cache: the connector's prefix-cache queries and hits
 * (the host tier is a KV connector to vLLM), the prompt tokens by source ({@code PromptTokenStats}), and the offload
 * transfers. Not thread-safe: the engine holds its lock.
 */
final class CacheTierStats {
    /** vLLM's offload transfer-size buckets, bytes ({@code _TRANSFER_SIZE_BUCKETS}). */
    static final double[] TRANSFER_SIZE_BUCKETS = {1e6, 5e6, 10e6, 20e6, 40e6, 60e6, 80e6, 100e6, 150e6, 200e6};

    private final SimProfile profile;
    long externalQueries;
    long externalHits;
    long promptComputed;
    long promptLocalHit;
    long promptExternal;
    long promptCached;
    long promptRecomputed;
    long loadBytes;
    double loadSeconds;
    long storeBytes;
    double storeSeconds;
    final Histogram loadSize = new Histogram(TRANSFER_SIZE_BUCKETS);
    final Histogram storeSize = new Histogram(TRANSFER_SIZE_BUCKETS);

    CacheTierStats(SimProfile profile) {
        this.profile = profile;
    }

    /** One connector lookup: {@code queries} = the tokens the local cache did not have, {@code hits} = those the tier had. */
    void lookup(int queries, int hits) {
        externalQueries += queries;
        externalHits += hits;
    }

    /**
     * vLLM's {@code PromptTokenStats.update_from_output}, at a request's first token: when the whole prompt but its last
     * token was cached, that token counts as recomputed (and as a local hit), whatever tier the rest came from.
     */
    void prefilled(int cachedTokens, int externalTokens, int promptLen) {
        int recomputed = cachedTokens + 1 == promptLen ? 1 : 0;
        promptComputed += promptLen - cachedTokens;
        promptExternal += externalTokens;
        promptLocalHit += cachedTokens + recomputed - externalTokens;
        promptCached += cachedTokens;
        promptRecomputed += recomputed;
    }

    void load(long bytes, double seconds) {
        loadBytes += bytes;
        loadSeconds += seconds;
        loadSize.observe(bytes);
    }

    void store(long bytes, double seconds) {
        storeBytes += bytes;
        storeSeconds += seconds;
        storeSize.observe(bytes);
    }

    CacheTierMetrics copy(HostKvTier tier) {
        return new CacheTierMetrics(tier != null, profile.kvOffloadGib(), externalQueries, externalHits, promptComputed,
                promptLocalHit, promptExternal, promptCached, promptRecomputed, loadBytes, loadSeconds, storeBytes,
                storeSeconds, loadSize.copy(), storeSize.copy(),
                tier == null ? 0 : (double) tier.pinned() / tier.capacity(),
                tier == null ? 0 : tier.size(), tier == null ? 0 : tier.capacity());
    }
}
