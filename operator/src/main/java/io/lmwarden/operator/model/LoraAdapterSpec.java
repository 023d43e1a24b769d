package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * One LoRA adapter: the model name it is served under and where its weights come from, a Hugging Face repository or a
 * directory on a PersistentVolumeClaim (exactly one; the CRD says so with a oneOf).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LoraAdapterSpec {

    @Required
    @Pattern(NAME_PATTERN)
    @JsonPropertyDescription("Model name of the adapter: what clients put in a request's model field. Unique among the adapters "
            + "and different from servedModelName.")
    private String name;

    @Pattern(HUGGING_FACE_ID_PATTERN)
    @JsonPropertyDescription("Hugging Face repository of the adapter, e.g. org/qwen3-4b-team-lora: vLLM downloads it into its "
            + "Hugging Face cache (the modelCache volume), with HF_TOKEN when hfTokenSecret is set.")
    private String huggingFace;

    @JsonPropertyDescription("A directory on a PersistentVolumeClaim holding the adapter (adapter_config.json and its weights), "
            + "mounted read-only into the vLLM container.")
    private LoraVolumeSpec volume;

    /** Letters, digits and {@code . _ - /}: no {@code =} or {@code ,}, so vLLM's parser reads {@code name=path} as that form. */
    public static final String NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._/-]*$";
    /** As {@code spec.model}: {@code name} or {@code owner/name}. */
    public static final String HUGGING_FACE_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9._-]+)?$";

    public LoraAdapterSpec() {
    }

    public static LoraAdapterSpec fromHuggingFace(String name, String repository) {
        LoraAdapterSpec adapter = new LoraAdapterSpec();
        adapter.setName(name);
        adapter.setHuggingFace(repository);
        return adapter;
    }

    public static LoraAdapterSpec fromVolume(String name, String claimName, String path) {
        LoraAdapterSpec adapter = new LoraAdapterSpec();
        adapter.setName(name);
        adapter.setVolume(new LoraVolumeSpec(claimName, path));
        return adapter;
    }

    public String getName() { return name; }
    public void setName(String name) { this.name = name; }
    public String getHuggingFace() { return huggingFace; }
    public void setHuggingFace(String huggingFace) { this.huggingFace = huggingFace; }
    public LoraVolumeSpec getVolume() { return volume; }
    public void setVolume(LoraVolumeSpec volume) { this.volume = volume; }
}
