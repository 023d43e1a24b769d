package io.lmwarden.operator.dependent;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Every vLLM feature LM Warden relies on, with the first vLLM release that has it, so that a refusal of a too-old
 * image can name the feature and the release, and so that operator/README.md's compatibility table is this enum
 * ({@link #markdownTable()}; a test holds the README to it).
 *
 * <p>{@link Provenance} says how each release is known: not every one could be checked against vLLM's tags
 * (docs/engine-compatibility.md says which sources were read and why a tag-by-tag check was not possible).
 */
public enum EngineFeature {
    SERVED_MODEL_NAME("served model name", "`--served-model-name`", "v0.7.0", Provenance.PRESENT_BY,
            "`EngineArgs.served_model_name` in vllm/engine/arg_utils.py at 001999d2 (early 2025)"),
    VERSION_ENDPOINT("engine version", "`GET /version`", "v0.7.0", Provenance.REPORTED,
            "vLLM's OpenAI server; not checked against a tag"),
    RETURN_TOKEN_IDS("prompt token ids in the response", "request field `return_token_ids`", "v0.10.2", Provenance.REPORTED,
            "`prompt_token_ids` in the response (first chunk when streaming); not checked against a tag"),
    KV_EVENTS("KV cache events", "`--kv-events-config` (ZMQ `BlockStored`, `BlockRemoved`, `AllBlocksCleared`; DP rank r on port + r)",
            "v0.10.2", Provenance.PRESENT_BY, "`KVEventsConfig` in vLLM's v0.10.2 API docs (docs.vllm.ai/en/v0.10.2, vllm/config/kv_events.py); "
            + "`EngineArgs.kv_events_config` at 99d7eb5d"),
    KV_EVENT_MEDIUM("host-tier copies in KV events", "`BlockStored`/`BlockRemoved` field `medium` (`CPU` for the host tier), "
            + "self-describing map events", "v0.24.0", Provenance.REPORTED, "`self_describing_kv_events` from v0.24; map events with a `type` key since PR #42892; not checked against a tag"),
    DATA_PARALLEL_RANK_HEADER("engine rank header", "request header `X-data-parallel-rank`", "v0.12.0", Provenance.REPORTED,
            "PR #24945, fixed on one path by PR #29002; the release after the fix, not checked against a tag"),
    DATA_PARALLEL_METRICS_LABEL("per-engine metrics", "label `engine` on every `vllm:` series (`\"0\"..\"N-1\"` with DP)", "v0.12.0",
            Provenance.REPORTED, "V1 engine metrics; not checked against a tag"),
    KV_OFFLOADING_FLAGS("host-memory KV tier", "`--kv-offloading-size`, `--kv-offloading-backend`", "v0.11.1", Provenance.REPORTED,
            "PR #27621, merged after v0.11.0; `CacheConfig.kv_offloading_size/backend` read at vllm-project/vllm 002f10e0"),
    KV_OFFLOAD_METRICS("host-tier metrics", "`vllm:external_prefix_cache_hits/queries`, `vllm:kv_offload_*`", "v0.26.0", Provenance.REPORTED,
            "names changed between releases; the published A/B read these from v0.26.0"),
    SCHEDULING_POLICY_PRIORITY("priority scheduling", "`--scheduling-policy priority`, request field `priority`", "v0.7.0",
            Provenance.PRESENT_BY, "`EngineArgs.scheduling_policy: Literal[\"fcfs\", \"priority\"]` at 001999d2 (early 2025)"),
    LORA_ADAPTERS("LoRA adapters", "`--enable-lora --lora-modules --max-loras --max-lora-rank --max-cpu-loras`", "v0.7.0", Provenance.PRESENT_BY,
            "`EngineArgs.enable_lora/max_loras/max_lora_rank/max_cpu_loras` at 001999d2; `FrontendArgs.lora_modules` at 789340fb");

    /** How a feature's first release is known. */
    public enum Provenance {
        /** Seen in vLLM's source at a commit (or in versioned docs) of that release's time; the feature may be older. */
        PRESENT_BY("seen in source"),
        /** From vLLM's pull requests and release notes, not checked against the tag's source. */
        REPORTED("reported");

        private final String words;

        Provenance(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    private final String humanName;
    private final String surface;
    private final VllmImageVersion firstRelease;
    private final Provenance provenance;
    private final String source;

    EngineFeature(String humanName, String surface, String firstRelease, Provenance provenance, String source) {
        this.humanName = humanName;
        this.surface = surface;
        this.firstRelease = VllmImageVersion.parse(firstRelease);
        this.provenance = provenance;
        this.source = source;
    }

    public String humanName() {
        return humanName;
    }

    public VllmImageVersion firstRelease() {
        return firstRelease;
    }

    public Provenance provenance() {
        return provenance;
    }

    /** The compatibility table of operator/README.md, one row per feature. */
    public static String markdownTable() {
        String rows = Arrays.stream(values())
                .map(f -> "| " + f.humanName + " | " + f.surface + " | " + f.firstRelease + " | " + f.provenance.words() + " | " + f.source + " |")
                .collect(Collectors.joining("\n"));
        return "| feature | what LM Warden uses | first vLLM release | how known | source |\n| --- | --- | --- | --- | --- |\n" + rows + "\n";
    }
}
