package io.lmwarden.sim.lora;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Parses {@code --lora-modules} values as vLLM's {@code LoRAParserAction} does ({@code vllm/entrypoints/openai/cli_args.py}):
 * an item with {@code =} and no comma is the old {@code name=path} form, anything else is JSON
 * ({@code {"name":…,"path":…,"base_model_name":…}}); empty items are skipped. Bad items get vLLM's messages.
 */
public final class LoraModules {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("name", "path", "base_model_name", "is_3d_lora_weight");

    private LoraModules() {
    }

    public static List<LoraModule> parse(List<String> items) {
        List<LoraModule> out = new ArrayList<>();
        if (items == null) {
            return out;
        }
        for (String item : items) {
            if (item == null || item.isEmpty()) {
                continue;
            }
            if (item.contains("=") && !item.contains(",")) {
                String[] parts = item.split("=", -1);
                if (parts.length != 2) {
                    // Python's "name, path = item.split('=')" fails on a second '='.
                    throw new IllegalArgumentException("Invalid --lora-modules item (name=path): " + item);
                }
                out.add(new LoraModule(parts[0], parts[1], null));
            } else {
                out.add(json(item));
            }
        }
        return out;
    }

    private static LoraModule json(String item) {
        JsonNode node;
        try {
            node = JSON.readTree(item);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Invalid JSON format for --lora-modules: " + item);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("Invalid JSON format for --lora-modules: " + item);
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new IllegalArgumentException("Invalid fields for --lora-modules: " + item
                        + " - LoRAModulePath got an unexpected keyword argument '" + f + "'");
            }
        }
        if (!node.path("name").isTextual() || !node.path("path").isTextual()) {
            throw new IllegalArgumentException("Invalid fields for --lora-modules: " + item
                    + " - LoRAModulePath needs 'name' and 'path'");
        }
        JsonNode base = node.get("base_model_name");
        return new LoraModule(node.get("name").asText(), node.get("path").asText(),
                base == null || base.isNull() ? null : base.asText());
    }
}
