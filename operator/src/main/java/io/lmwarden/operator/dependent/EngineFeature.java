package io.lmwarden.operator.dependent;

import io.lmwarden.common.engine.VllmFeature;

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
    SERVED_MODEL_NAME("served model name", "`--served-model-name`", VllmFeature.SERVED_MODEL_NAME),
    VERSION_ENDPOINT("engine version", "`GET /version`", VllmFeature.VERSION_ENDPOINT),
    RETURN_TOKEN_IDS("prompt token ids in the response", "request field `return_token_ids`", VllmFeature.RETURN_TOKEN_IDS),
    KV_EVENTS("KV cache events", "`--kv-events-config` (ZMQ `BlockStored`, `BlockRemoved`, `AllBlocksCleared`; DP rank r on port + r)",
            VllmFeature.KV_EVENTS),
    KV_EVENT_MEDIUM("host-tier copies in KV events", "`BlockStored`/`BlockRemoved` field `medium` (`CPU` for the host tier)",
            VllmFeature.KV_EVENT_MEDIUM),
    DATA_PARALLEL_RANK_HEADER("engine rank header", "request header `X-data-parallel-rank`", VllmFeature.DATA_PARALLEL_RANK_HEADER),
    DATA_PARALLEL_METRICS_LABEL("per-engine metrics", "label `engine` on every `vllm:` series (`\"0\"..\"N-1\"` with DP)",
            VllmFeature.DATA_PARALLEL_METRICS_LABEL),
    KV_OFFLOADING_FLAGS("host-memory KV tier", "`--kv-offloading-size`, `--kv-offloading-backend`", VllmFeature.KV_OFFLOADING_FLAGS),
    KV_OFFLOAD_METRICS("host-tier metrics", "`kv_offloading_size` on `vllm:cache_config_info`, `vllm:kv_offload_*`", VllmFeature.KV_OFFLOAD_METRICS),
    SCHEDULING_POLICY_PRIORITY("priority scheduling", "`--scheduling-policy priority`, request field `priority`",
            VllmFeature.SCHEDULING_POLICY_PRIORITY),
    LORA_ADAPTERS("LoRA adapters", "`--enable-lora --lora-modules --max-loras --max-lora-rank --max-cpu-loras`", VllmFeature.LORA_ADAPTERS);

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

    EngineFeature(String humanName, String surface, VllmFeature release) {
        this.humanName = humanName;
        this.surface = surface;
        this.firstRelease = VllmImageVersion.parse("v" + release.firstRelease());
        this.provenance = release.seenInSource() ? Provenance.PRESENT_BY : Provenance.REPORTED;
        this.source = release.source();
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
