package io.lmwarden.common.engine;

/**
 * The first vLLM release of every engine feature LM Warden uses, and how that is known: the one table the operator
 * (which refuses an image too old for a feature a ModelDeployment asks for, and writes operator/README.md's
 * compatibility table) and the router (which warns once about a replica too old for a feature it uses with it) both
 * read, so that the two never disagree.
 *
 * <p>Where a release is "reported" it comes from the pull request's merge date against vLLM's release branches (a
 * change merged before a release's branch cut ships in it), not from the tag's source: vLLM's repository is over the
 * size this project's tools can fetch. "Seen in source" means the feature was read in vLLM's source or versioned docs
 * of that release's time; it may be older.
 */
public enum VllmFeature {

    SERVED_MODEL_NAME("0.7.0", true, "`EngineArgs.served_model_name` in vllm/engine/arg_utils.py at 001999d2 (early 2025)"),
    VERSION_ENDPOINT("0.7.0", false, "`GET /version` of vLLM's OpenAI server (vllm/entrypoints/serve/instrumentator/basic.py at dcbf2004; "
            + "api_server.py before)"),
    RETURN_TOKEN_IDS("0.10.2", false, "PR #22587 (August 2025): `prompt_token_ids` and each choice's `token_ids`"),
    KV_EVENTS("0.10.0", false, "`--kv-events-config` with ZMQ `BlockStored`/`BlockRemoved`/`AllBlocksCleared` (PR #16750); "
            + "`KVEventsConfig` in the v0.10.2 API docs"),
    KV_EVENT_MEDIUM("0.10.0", false, "`medium` on `BlockStored`/`BlockRemoved` (PR #19737); map events with a `type` key only since "
            + "PR #42892, self-describing host events since 0.24 (both optional to the router)"),
    DATA_PARALLEL_RANK_HEADER("0.11.0", false, "PR #24945 (September 2025); one path fixed later by PR #29002"),
    DATA_PARALLEL_METRICS_LABEL("0.11.0", false, "label `engine` on every `vllm:` series of the V1 engine's metrics"),
    KV_OFFLOADING_FLAGS("0.11.1", false, "PR #27621, merged 2025-10-28 after v0.11.0; `CacheConfig.kv_offloading_size/backend` "
            + "read at 002f10e0"),
    KV_OFFLOAD_METRICS("0.12.0", false, "`kv_offloading_size` on `vllm:cache_config_info` (PR #27621) and the offloading "
            + "connector's `vllm:kv_offload_*` counters (PR #27942, November 2025)"),
    SCHEDULING_POLICY_PRIORITY("0.7.0", true, "`EngineArgs.scheduling_policy: Literal[\"fcfs\", \"priority\"]` at 001999d2 (early 2025)"),
    LORA_ADAPTERS("0.7.0", true, "`EngineArgs.enable_lora/max_loras/max_lora_rank/max_cpu_loras` at 001999d2; "
            + "`FrontendArgs.lora_modules` at 789340fb");

    private final String firstRelease;
    private final boolean seenInSource;
    private final String source;

    VllmFeature(String firstRelease, boolean seenInSource, String source) {
        this.firstRelease = firstRelease;
        this.seenInSource = seenInSource;
        this.source = source;
    }

    /** The first release, {@code MAJOR.MINOR.PATCH}. */
    public String firstRelease() {
        return firstRelease;
    }

    /** True: read in vLLM's source or versioned docs of that time; false: reported (pull requests, release notes). */
    public boolean seenInSource() {
        return seenInSource;
    }

    public String source() {
        return source;
    }
}
