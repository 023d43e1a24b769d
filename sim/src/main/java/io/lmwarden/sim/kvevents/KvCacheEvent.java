package io.lmwarden.sim.kvevents;

/**
 * One KV cache event as vLLM's {@code vllm/distributed/kv_events.py} defines it: {@code BlockStored},
 * {@code BlockRemoved} or {@code AllBlocksCleared}. Block hashes are 64-bit values sent as unsigned integers.
 */
public sealed interface KvCacheEvent {
    String MEDIUM_GPU = "GPU";
    String MEDIUM_CPU = "CPU";
    /** vLLM's {@code kv_cache_spec_kind} of a plain full-attention model's one KV cache group. */
    String FULL_ATTENTION = "full_attention";

    /**
     * Blocks that became resident on {@code medium}.
     *
     * @param parentBlockHash the hash of the block before the first one, or null when the first is the prefix's first
     *                        (and always null for the host tier's copies, as vLLM's offloading connector sends them)
     * @param tokenIds        the token ids of all the blocks, in order (empty for host-tier copies)
     * @param loraId          the adapter's {@code lora_int_id} (vLLM's {@code lora_request.adapter_id}), null for the base model
     * @param loraName        the adapter's name, null for the base model
     * @param extraKeys       per block: the extra keys mixed into its hash (the adapter's name in every block, then
     *                        cache_salt in the first block's), null entries for blocks without any; the whole list null
     *                        when vLLM leaves it out
     * @param groupIdx        the KV cache group (0 for a plain model), null when vLLM leaves it out
     * @param specKind        the group's {@code kv_cache_spec_kind}, null when vLLM leaves it out
     */
    record BlockStored(long[] blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize, String medium,
                       Integer loraId, String loraName, java.util.List<java.util.List<String>> extraKeys, Integer groupIdx,
                       String specKind) implements KvCacheEvent {
    }

    /** Blocks evicted from {@code medium}. */
    record BlockRemoved(long[] blockHashes, String medium, Integer groupIdx) implements KvCacheEvent {
    }

    /** Everything the engine cached is gone (a prefix-cache reset or a fresh engine). */
    record AllBlocksCleared() implements KvCacheEvent {
    }
}
