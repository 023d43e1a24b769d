package io.lmwarden.operator.model;

/** Defaults written into the CRD schema and applied again in code, so objects created without
 *  API-server defaulting (older clients, tests) behave the same. */
public final class Defaults {
    public static final String VLLM_IMAGE = "vllm/vllm-openai:v0.26.0";
    /** vLLM's own default policy (docs/engine-scheduling-policy.md). */
    public static final String SCHEDULING_POLICY = "fcfs";
    public static final String ROUTER_POLICY = "affinity";
    public static final String LAYOUT_POD_PER_REPLICA = "podPerReplica";
    public static final String LAYOUT_DATA_PARALLEL_SERVER = "dataParallelServer";
    public static final String SPILL_THRESHOLD = "auto";
    public static final String SESSION_IDLE_TIMEOUT = "2h";
    public static final String SIMULATOR_PROFILE = "a4000-qwen3-4b";
    public static final String HF_TOKEN_KEY = "token";
    public static final String MODEL_CACHE_MOUNT_PATH = "/root/.cache/huggingface";
    public static final String KV_OFFLOAD_BACKEND = "native";
    /** vLLM's own default, accepted by every vLLM version that has the flag. */
    public static final String PREFIX_CACHING_HASH_ALGO = "sha256";
    /** vLLM's own defaults of max_loras and max_lora_rank (LoRAConfig in vllm/config/lora.py). */
    public static final String LORA_MAX_LORAS = "1";
    public static final String LORA_MAX_LORA_RANK = "16";
    public static final String MAX_UNAVAILABLE = "1";
    public static final String DRAIN_TIMEOUT = "5m";
    /** The vLLM startup probe's own budget (10 s × 180): a new replica not Ready by then will not become Ready. */
    public static final String READY_TIMEOUT = "30m";
    /** The router's own default shutdownGrace (router/README.md). */
    public static final String ROUTER_SHUTDOWN_GRACE = "30s";

    private Defaults() {
    }
}
