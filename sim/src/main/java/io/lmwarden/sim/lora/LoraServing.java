package io.lmwarden.sim.lora;

import io.lmwarden.sim.engine.Engine;

import java.util.List;
import java.util.Optional;

/**
 * LoRA on one simulated API server: its options, the adapters it has loaded, its {@code vllm:lora_requests_info} gauge
 * and its engines' residency. Static {@code --lora-modules} are loaded at start (into every engine's CPU memory, as
 * vLLM's {@code init_static_loras} does through {@code add_lora}); runtime loads and unloads reach every engine too.
 */
public final class LoraServing {
    private final LoraOptions options;
    private final AdapterRegistry registry;
    private final LoraRequestsInfo info;
    private final List<Engine> engines;

    /** Wires LoRA into {@code engines} (before they start). */
    public LoraServing(LoraOptions options, List<String> servedModelNames, List<Engine> engines) {
        this.options = options;
        this.engines = List.copyOf(engines);
        this.registry = new AdapterRegistry(servedModelNames, options.modules());
        this.info = new LoraRequestsInfo(options.maxLoras());
        if (options.enabled()) {
            for (Engine e : engines) {
                e.useLora(options, info);
                registry.all().forEach(a -> e.preloadAdapter(a.name()));
            }
        }
    }

    public LoraOptions options() {
        return options;
    }

    public boolean enabled() {
        return options.enabled();
    }

    /** The adapter a request's {@code model} names, if it names one. */
    public Optional<Adapter> adapter(String model) {
        return options.enabled() && model != null ? registry.find(model) : Optional.empty();
    }

    public List<Adapter> adapters() {
        return registry.all();
    }

    public LoraRequestsInfo info() {
        return info;
    }

    /** {@code /v1/load_lora_adapter}'s effect once checked: registered, and in every engine's CPU memory. */
    public Adapter load(String name, String path, boolean inPlace) {
        Adapter a = registry.load(name, path, null, inPlace);
        engines.forEach(e -> e.preloadAdapter(name));
        return a;
    }

    /** {@code /v1/unload_lora_adapter}'s effect: false when no adapter has that name. */
    public boolean unload(String name) {
        if (!registry.unload(name)) {
            return false;
        }
        engines.forEach(e -> e.removeAdapter(name));
        return true;
    }
}
