package io.lmwarden.sim.lora;

/**
 * One {@code --lora-modules} entry, vLLM's {@code LoRAModulePath}: the adapter's name (what requests put in
 * {@code model}), its path (a directory or a Hugging Face id; the simulator reads nothing from it) and, optionally, the
 * served name of the base model it applies to ({@code base_model_name}, null = the first served name).
 */
public record LoraModule(String name, String path, String baseModelName) {
    public LoraModule {
        if (name == null || name.isBlank() || path == null || path.isBlank()) {
            throw new IllegalArgumentException("a LoRA module needs a name and a path");
        }
    }
}
