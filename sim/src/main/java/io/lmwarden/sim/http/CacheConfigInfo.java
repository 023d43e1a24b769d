package io.lmwarden.sim.http;

import io.lmwarden.sim.engine.CacheTierMetrics;
import io.lmwarden.sim.engine.EngineMetrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The labels of {@code vllm:cache_config_info}: exactly what vLLM gives the series, {@code CacheConfig.metrics_info()}
 * ({@code {key: str(value) for key, value in self.__dict__.items()}}) plus {@code engine} (loggers.py,
 * {@code log_metrics_info}); no {@code model_name}. Field list and defaults from {@code vllm/config/cache.py} at
 * vllm-project/vllm {@code 002f10e0cfa1373a19a0d2756598a34b700d20e5}, values as Python's {@code str()} writes them,
 * set as they are after a plain attention model's KV cache is initialized (when vLLM logs the series).
 */
final class CacheConfigInfo {
    /** vLLM's CacheConfig.DEFAULT_BLOCK_SIZE: a replica with another block size had it set by the user. */
    private static final int DEFAULT_BLOCK_SIZE = 16;

    private CacheConfigInfo() {
    }

    static Map<String, String> labels(EngineMetrics m, CacheTierMetrics tier, String engine) {
        long capacityTokens = (long) m.numGpuBlocks() * m.blockSize();
        Map<String, String> l = new LinkedHashMap<>();
        l.put("block_size", Integer.toString(m.blockSize()));
        l.put("user_specified_block_size", py(m.blockSize() != DEFAULT_BLOCK_SIZE));
        l.put("user_specified_mamba_block_size", "False");
        // What a backend preferring vLLM's legacy NHD layout resolves to (KVCacheLayout's name for it).
        l.put("kv_cache_layout", "LBNHC");
        l.put("prefix_match_unit", "None");
        l.put("gpu_memory_utilization", "0.92");
        l.put("cache_dtype", "auto");
        l.put("is_attention_free", "False");
        l.put("num_gpu_blocks_override", "None");
        l.put("sliding_window", "None");
        l.put("enable_prefix_caching", "True");
        l.put("prefix_caching_hash_algo", "sha256");
        l.put("attn_group_size", "None");
        l.put("prefix_cache_retention_interval", "0");
        l.put("kv_cache_dtype_skip_layers", "[]");
        l.put("mamba_page_size_padded", "None");
        l.put("skip_page_size_padded", "None");
        l.put("mamba_block_size", "None");
        l.put("mamba_cache_dtype", "auto");
        l.put("mamba_ssm_cache_dtype", "auto");
        l.put("mamba_cache_mode", "none");
        l.put("enable_mamba_fine_grained_prefix_cache", "False");
        l.put("replayssm_buffer_len", "16");
        l.put("use_replayssm", "False");
        l.put("use_kda_recoverssm", "False");
        l.put("num_gpu_blocks", Integer.toString(m.numGpuBlocks()));
        l.put("num_cpu_blocks", "None");
        l.put("effective_attention_block_size", Integer.toString(m.blockSize()));
        l.put("kv_cache_size_tokens", Long.toString(capacityTokens));
        l.put("kv_cache_max_concurrency", pyFloat((double) capacityTokens / m.maxModelLen()));
        l.put("kv_sharing_fast_prefill", "False");
        l.put("kv_cache_memory_bytes", "None");
        // --kv-offloading-size (GiB, a float in vLLM's config) when the engine has a host tier.
        l.put("kv_offloading_size", tier.hostTier() ? pyFloat(tier.kvOffloadGib()) : "None");
        l.put("kv_offloading_backend", "native");
        // Set on the instance by CacheConfig's block-size validator, so it is in __dict__ too.
        l.put("_block_size_resolved", "True");
        l.put("engine", engine);
        return l;
    }

    private static String py(boolean b) {
        return b ? "True" : "False";
    }

    /** Python's str(float): shortest repr, with ".0" for whole numbers. */
    static String pyFloat(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e16 ? (long) v + ".0" : Double.toString(v);
    }
}
