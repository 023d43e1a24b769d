package io.lmwarden.router.pool;

import io.lmwarden.common.engine.VllmFeature;

/**
 * The engine features the router depends on, each with the first vLLM release that has it and where that came from:
 * the router's view of the compatibility table (operator/README.md keeps the whole product's). A replica older than a
 * feature the router uses with it gets one warning ({@link EngineVersionWarnings}). Releases were read from the PRs'
 * merge dates against vLLM's release branches (a feature merged before a release's branch cut ships in it); the wire
 * details each feature brings were checked in vLLM's source as docs/kv-events.md, docs/host-kv-tier.md and
 * router/README.md ("In front of a data-parallel server") name. The releases are the product's one table,
 * {@link VllmFeature}, which the operator reads too.
 */
public enum EngineFeature {

    /**
     * KV-cache events with the fields the router reads: {@code BlockStored} with block hashes, parent hash, token ids and
     * block size, {@code BlockRemoved}, {@code AllBlocksCleared} (vllm-project/vllm PR #16750), and the {@code medium}
     * field that tells a host-tier copy from a GPU block (PR #19737): both in 0.10.0.
     */
    KV_EVENTS("kvEvents", "KV cache events (with medium)", VllmFeature.KV_EVENT_MEDIUM),
    /**
     * {@code "return_token_ids": true} on chat/completions and completions, answered with {@code prompt_token_ids} and
     * each choice's {@code token_ids} (PR #22587, merged August 2025): 0.10.2. The router asks for them while it follows
     * any replica's KV events, to key the engine's blocks.
     */
    RETURN_TOKEN_IDS("kvEvents", "return_token_ids", VllmFeature.RETURN_TOKEN_IDS),
    /**
     * The {@code X-data-parallel-rank} request header that sends a request to one engine of a data-parallel server
     * (PR #24945, merged September 2025): 0.11.0. Used for every replica that is an engine rank.
     */
    DATA_PARALLEL_RANK_HEADER("replicas (engine ranks)", "X-data-parallel-rank header", VllmFeature.DATA_PARALLEL_RANK_HEADER),
    /**
     * The host tier's metrics the router scrapes: {@code kv_offloading_size} on {@code vllm:cache_config_info} with the
     * native offloading flags (PR #27621, merged 2025-10-28, after 0.11.0), and the offloading connector's
     * {@code vllm:kv_offload_*} transfer counters (PR #27942, merged November 2025): 0.12.0. Used for every replica that
     * reports a tier.
     */
    HOST_TIER_METRICS("host tier (kv_offloading_size)", "host-tier metrics (vllm:kv_offload_*)", VllmFeature.KV_OFFLOAD_METRICS);

    private final String usedBy;
    private final String title;
    private final EngineVersion firstRelease;
    private final String source;

    EngineFeature(String usedBy, String title, VllmFeature release) {
        this.usedBy = usedBy;
        this.title = title;
        this.firstRelease = EngineVersion.of(release.firstRelease());
        this.source = release.source();
    }

    /** The router setting or replica property that makes the router use it. */
    public String usedBy() {
        return usedBy;
    }

    public String title() {
        return title;
    }

    public EngineVersion firstRelease() {
        return firstRelease;
    }

    public String source() {
        return source;
    }
}
