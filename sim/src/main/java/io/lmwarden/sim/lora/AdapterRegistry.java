package io.lmwarden.sim.lora;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The adapters one API server has loaded, vLLM's {@code OpenAIServingModels.lora_requests}: static
 * {@code --lora-modules} at start, then what {@code /v1/load_lora_adapter} adds and {@code /v1/unload_lora_adapter}
 * removes. Ids come from one counter ({@code lora_id_counter}), so an unloaded name that is loaded again gets a new id,
 * an in-place reload keeps its own. Thread-safe: the HTTP handlers and the engines read it.
 */
public final class AdapterRegistry {
    private final List<String> baseModels;
    private final Map<String, Adapter> byName = new LinkedHashMap<>();
    private int lastId;

    /** @param baseModels the served names; the first is an adapter's parent unless it names another one */
    public AdapterRegistry(List<String> baseModels, List<LoraModule> modules) {
        this.baseModels = List.copyOf(baseModels);
        for (LoraModule m : modules) {
            load(m.name(), m.path(), m.baseModelName(), false);
        }
    }

    /** vLLM's parent: the module's base_model_name when it is a served name, else the first served name. */
    private String parentOf(String baseModelName) {
        return baseModelName != null && baseModels.contains(baseModelName) ? baseModelName : baseModels.get(0);
    }

    /** Adds (or, in place, replaces) an adapter; its id is new unless it replaces one. */
    public synchronized Adapter load(String name, String path, String baseModelName, boolean inPlace) {
        Adapter old = byName.get(name);
        if (old != null && !inPlace) {
            throw new IllegalStateException("already loaded: " + name);
        }
        Adapter a = new Adapter(name, old != null ? old.id() : ++lastId, path, old != null && baseModelName == null
                ? old.parent() : parentOf(baseModelName));
        byName.put(name, a);
        return a;
    }

    public synchronized boolean unload(String name) {
        return byName.remove(name) != null;
    }

    public synchronized Optional<Adapter> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public synchronized boolean contains(String name) {
        return byName.containsKey(name);
    }

    /** The adapters in load order, as {@code /v1/models} lists them after the base model's names. */
    public synchronized List<Adapter> all() {
        return new ArrayList<>(byName.values());
    }
}
