package io.lmwarden.sim.lora;

/**
 * A loaded LoRA adapter, vLLM's {@code LoRARequest} as the API server holds it: {@code id} is its {@code lora_int_id}
 * (1, 2, … in load order, kept by an in-place reload), {@code parent} the served base-model name {@code /v1/models}
 * shows. Requests under it hash their KV blocks with {@link #hashKey()} (vLLM puts the adapter's name in every
 * block's extra keys), so no block is shared across adapters or with the base model.
 */
public record Adapter(String name, int id, String path, String parent) {

    /** The 64-bit value the adapter's name mixes into every block hash (never 0: 0 means "no adapter"). */
    public long hashKey() {
        long h = 0x84222325cbf29ce4L;
        for (char c : name.toCharArray()) {
            h = (h ^ c) * 0x100000001b3L;
        }
        return h == 0 ? 1 : h;
    }
}
