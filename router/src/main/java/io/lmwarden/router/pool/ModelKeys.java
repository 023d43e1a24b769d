package io.lmwarden.router.pool;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One name per model across the pool, for keying what belongs to a model rather than to a name (a session's
 * pin): every alias of a model maps to one key, the first name its first endpoint lists for it. Endpoints
 * that list a name in common join their models' names into one (a pool of replicas with the same weights
 * under overlapping name lists). A name no endpoint lists is its own key.
 */
final class ModelKeys {

    private ModelKeys() {
    }

    /** @param endpoints each endpoint's known list, in a stable order (by endpoint id), so every router picks the same keys */
    static Map<String, String> of(List<ServedModels> endpoints) {
        Map<String, String> keyOf = new HashMap<>();
        for (ServedModels served : endpoints) {
            Map<String, List<String>> namesByModel = new LinkedHashMap<>();
            served.modelOf().forEach((name, model) -> namesByModel.computeIfAbsent(model, m -> new ArrayList<>()).add(name));
            namesByModel.forEach((model, names) -> {
                // An earlier endpoint's key for any of these names wins; the model's first name otherwise.
                String key = keyOf.get(model);
                for (int i = 0; key == null && i < names.size(); i++) {
                    key = keyOf.get(names.get(i));
                }
                String chosen = key == null ? model : key;
                for (String name : names) {
                    String previous = keyOf.put(name, chosen);
                    if (previous != null && !previous.equals(chosen)) {
                        // Two models named alike by another endpoint are one: all of the other key's names follow.
                        keyOf.replaceAll((n, k) -> k.equals(previous) ? chosen : k);
                    }
                }
            });
        }
        return Map.copyOf(keyOf);
    }
}
