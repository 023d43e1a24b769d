package io.lmwarden.router.pool;

/**
 * What one scrape says about an engine's host-memory KV tier (vLLM's native KV offloading,
 * {@code --kv-offloading-size}): its size, the connector's prefix-cache counters and the offload transfer counters,
 * raw totals since the engine started. vLLM names checked in vllm-project/vllm (router/README.md, "Host-memory KV
 * tier"): {@code vllm:external_prefix_cache_queries/hits} (tokens looked up in the tier beyond the GPU hit / loaded
 * from it), {@code vllm:kv_offload_load_bytes/_time} (engine seconds), and the {@code kv_offloading_size} label of
 * {@code vllm:cache_config_info} (GiB per engine, {@code "None"} without a tier).
 *
 * @param sizeGib           the tier's size, GiB; 0 when the engine has none or does not say
 * @param externalQueries   tokens looked up in the tier
 * @param externalHits      tokens found there and loaded
 * @param loadBytes         bytes copied host → GPU
 * @param loadEngineSeconds the time those copies took, engine seconds
 */
public record HostTierMetrics(double sizeGib, double externalQueries, double externalHits, double loadBytes, double loadEngineSeconds) {

    public static final HostTierMetrics NONE = new HostTierMetrics(0, 0, 0, 0, 0);

    /**
     * KV bytes per token until the engine's own loads tell: the reference model's (Qwen3-4B, 36 layers × 8 KV heads ×
     * 128 × 2 × bf16 = 147,456 B), as the router assumes the reference replica's GPU capacity until it is reported.
     */
    public static final double PRIOR_BYTES_PER_TOKEN = 147_456;
    /** Host → GPU bandwidth until the engine's loads tell: PCIe 4.0 x16, ~25 GB/s. */
    public static final double PRIOR_BYTES_PER_SECOND = 25e9;
    private static final double GIB = 1024.0 * 1024 * 1024;
    /** Loads smaller than this teach nothing: one block's copy time is mostly overhead. */
    private static final double MIN_LEARNING_BYTES = 16 * 1024 * 1024;

    public boolean present() {
        return sizeGib > 0;
    }

    /** Share of the tokens looked up in the tier that it held; 0 before any lookup. */
    public double hitRate() {
        return externalQueries <= 0 ? 0 : externalHits / externalQueries;
    }

    /** Host → GPU bytes per engine second over every load so far, or the prior before enough was loaded. */
    public double loadBytesPerSecond() {
        return learned() && loadEngineSeconds > 0 ? loadBytes / loadEngineSeconds : PRIOR_BYTES_PER_SECOND;
    }

    /** KV bytes per token, from the bytes loaded per token loaded, or the prior before enough was loaded. */
    public double bytesPerToken() {
        return learned() && externalHits > 0 ? loadBytes / externalHits : PRIOR_BYTES_PER_TOKEN;
    }

    /** Whether bandwidth and bytes per token come from the engine's own loads rather than the priors. */
    public boolean learned() {
        return loadBytes >= MIN_LEARNING_BYTES;
    }

    /** Tokens the tier holds: its GiB over the bytes one token takes; 0 without a tier. */
    public long capacityTokens() {
        return present() ? (long) (sizeGib * GIB / bytesPerToken()) : 0;
    }

    /** Engine milliseconds to load {@code tokens} from the tier. */
    public double loadEngineMillis(long tokens) {
        return tokens * bytesPerToken() / loadBytesPerSecond() * 1000;
    }
}
