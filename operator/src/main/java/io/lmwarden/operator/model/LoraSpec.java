package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

import java.util.List;

/**
 * LoRA adapters served by every replica on top of the base model (vLLM {@code --enable-lora}): each adapter is one more
 * model name clients put in {@code model}. operator/README.md, "LoRA adapters", says how each field becomes a flag and
 * which vLLM source it was checked against.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.maxCpuLoras) || self.maxCpuLoras >= (has(self.maxLoras) ? self.maxLoras : 1)",
        message = "maxCpuLoras must be at least maxLoras: vLLM keeps every adapter of a batch in CPU memory too")
public class LoraSpec {

    /** vLLM's {@code MaxLoRARanks} (vllm/config/lora.py): the only values {@code --max-lora-rank} takes. */
    public static final List<Integer> MAX_LORA_RANKS = List.of(1, 8, 16, 32, 64, 128, 256, 320, 512);

    @JsonPropertyDescription("Adapters loaded when a replica starts (vLLM --lora-modules), each with a unique name and one source: "
            + "huggingFace or volume.")
    private List<LoraAdapterSpec> adapters;

    @Default(Defaults.LORA_MAX_LORAS)
    @Min(1)
    @JsonPropertyDescription("Adapters one batch may hold (vLLM --max-loras); a request for another adapter waits for a slot. "
            + "Also the router's maxLoras, for adapter placement until the engines publish max_lora.")
    private Integer maxLoras;

    @Default(Defaults.LORA_MAX_LORA_RANK)
    @JsonPropertyDescription("Largest rank of any adapter (vLLM --max-lora-rank): 1, 8, 16, 32, 64, 128, 256, 320 or 512.")
    private Integer maxLoraRank;

    @Min(1)
    @JsonPropertyDescription("Adapters kept in CPU memory (vLLM --max-cpu-loras), at least maxLoras; left out: vLLM's default, maxLoras.")
    private Integer maxCpuLoras;

    @Default("false")
    @JsonPropertyDescription("Allow loading and unloading adapters at run time (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True: "
            + "POST /v1/load_lora_adapter and /v1/unload_lora_adapter on every replica).")
    private Boolean runtimeUpdating;

    public LoraSpec() {
    }

    public LoraSpec(List<LoraAdapterSpec> adapters, Integer maxLoras, Integer maxLoraRank, Integer maxCpuLoras, Boolean runtimeUpdating) {
        this.adapters = adapters;
        this.maxLoras = maxLoras;
        this.maxLoraRank = maxLoraRank;
        this.maxCpuLoras = maxCpuLoras;
        this.runtimeUpdating = runtimeUpdating;
    }

    public List<LoraAdapterSpec> getAdapters() { return adapters; }
    public void setAdapters(List<LoraAdapterSpec> adapters) { this.adapters = adapters; }
    public Integer getMaxLoras() { return maxLoras; }
    public void setMaxLoras(Integer maxLoras) { this.maxLoras = maxLoras; }
    public Integer getMaxLoraRank() { return maxLoraRank; }
    public void setMaxLoraRank(Integer maxLoraRank) { this.maxLoraRank = maxLoraRank; }
    public Integer getMaxCpuLoras() { return maxCpuLoras; }
    public void setMaxCpuLoras(Integer maxCpuLoras) { this.maxCpuLoras = maxCpuLoras; }
    public Boolean getRuntimeUpdating() { return runtimeUpdating; }
    public void setRuntimeUpdating(Boolean runtimeUpdating) { this.runtimeUpdating = runtimeUpdating; }
}
