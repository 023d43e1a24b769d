package io.lmwarden.router.config;

import java.time.Duration;
import java.util.List;

/** Which policy places requests, and what it and the affinity table are told about the engines. */
public record PlacementSettings(
        String policy,
        SpillThreshold spillThreshold,
        boolean affinity,
        int maxNumSeqs,
        double prefillMsPerToken,
        Duration sessionIdleTimeout,
        int affinityMaxEntries,
        int maxLoras,
        boolean adapterPlacement,
        boolean loadAdapters) {

    /** The policies {@code policy} and {@code PUT /api/policy} accept; placement's {@code PolicyFactory} builds each. */
    public static final List<String> POLICIES = List.of("affinity", "cost", "least-loaded", "round-robin", "passthrough");

    public static final Setting<String> POLICY = Setting.choice("policy", "affinity", POLICIES,
            "placement policy: " + String.join(", ", POLICIES));
    public static final Setting<SpillThreshold> SPILL_THRESHOLD = Setting.of("spillThreshold", "auto or integer", SpillThreshold.class,
            SpillThreshold::parse, "auto",
            "in-flight requests on the home replica above which a step spills: auto (= max_num_seqs/4) or an integer");
    public static final Setting<Boolean> AFFINITY = Setting.bool("affinity", true,
            "session affinity on/off; off places every request like least-loaded");
    public static final Setting<Integer> MAX_NUM_SEQS = Setting.integer("maxNumSeqs", 32,
            "engine max_num_seqs, used for spill threshold auto when the engine does not expose it").atLeast(1);
    public static final Setting<Double> PREFILL_MS_PER_TOKEN = Setting.decimal("prefillMsPerToken", "0.3",
            "prior for the engines' prefill time per prompt token, in ms (learned online per replica; 0.3 = Qwen3-4B on an RTX "
                    + "A4000; with --simulate the profile's own)").positive();
    public static final Setting<Duration> SESSION_IDLE_TIMEOUT = Setting.duration("sessionIdleTimeout", "2h",
            "an affinity entry unused this long is forgotten");
    public static final Setting<Integer> AFFINITY_MAX_ENTRIES = Setting.integer("affinityMaxEntries", 1000000,
            "bound of the affinity table; the least recently used entry goes first").atLeast(1);
    public static final Setting<Integer> MAX_LORAS = Setting.integer("maxLoras", 1,
            "engine max_loras (LoRA adapters one batch runs at once), for adapter placement until the engine publishes it "
                    + "(vllm:lora_requests_info's max_lora label); 1 = vLLM's default").atLeast(1);
    public static final Setting<Boolean> ADAPTER_PLACEMENT = Setting.bool("adapterPlacement", true,
            "a new session of a LoRA adapter goes to a replica already working for that adapter (unless each such replica "
                    + "is past its share of sessions), else to one with a free adapter slot, else where fewest adapters run "
                    + "(docs/lora.md); off: placed like a base-model session");
    public static final Setting<Boolean> LOAD_ADAPTERS = Setting.bool("loadAdapters", false,
            "when no replica that lists a LoRA adapter has room for its new session, load it (POST /v1/load_lora_adapter, "
                    + "from the path another replica lists it with) on the least loaded replica of its base model with a free "
                    + "adapter slot; needs vLLM started with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True; never unloads");

    /** The policy in force at start: {@code affinity: false} places like least-loaded whatever {@code policy} says. */
    public String startPolicy() {
        return affinity ? policy : "least-loaded";
    }
}
