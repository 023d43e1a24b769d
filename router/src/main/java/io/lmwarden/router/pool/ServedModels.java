package io.lmwarden.router.pool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The model names one endpoint answers to, as its {@code GET /v1/models} lists them, and for each name the
 * model it serves: the first name listed for the same weights. vLLM lists every {@code --served-model-name}
 * as a card of its own with the same {@code root} (the path of the weights it loaded) and no {@code parent};
 * a LoRA adapter has its own root and a {@code parent}, and hashes its KV blocks apart (its name is in the
 * block hash), so it is a model of its own. Names of one model share its prefix cache: they are aliases.
 * Checked against vllm-project/vllm {@code vllm/entrypoints/openai/models/serving.py} at commit
 * {@code 00153c8b7948077ebdfc5bfa14e403da41aaea6d} ({@code OpenAIModelRegistry.show_available_models} and
 * {@code OpenAIServingModels.show_available_models}).
 *
 * <p>An adapter is also a cache identity of its own: vLLM keys its blocks by the adapter's name, so the same text under
 * two adapters, or under an adapter and its base model, shares nothing. {@code adapters} names the cards with a
 * {@code parent} other than their own id (vLLM's LoRA cards: {@code parent} = the base model's name).
 *
 * @param known    whether the endpoint's list was read; an endpoint whose list is not known counts as serving every name
 * @param modelOf  each name listed, in the endpoint's order, with the first name of its model
 * @param adapters the names listed as LoRA adapters
 * @param loraCards each adapter's {@code parent} (its base model's name) and {@code root} (the path it was loaded from),
 *                  what a load of the same adapter onto another replica needs
 */
public record ServedModels(boolean known, Map<String, String> modelOf, Set<String> adapters, Map<String, LoraCard> loraCards) {

    /** A LoRA adapter's card: its base model's name and the path vLLM loaded it from. */
    public record LoraCard(String parent, String root) {
    }

    /** Not read yet, or the endpoint does not answer {@code /v1/models} (e.g. vLLM's {@code --api-key} guards it). */
    public static final ServedModels UNKNOWN = new ServedModels(false, Map.of());

    private static final ObjectMapper JSON = new ObjectMapper();

    public ServedModels {
        modelOf = Collections.unmodifiableMap(new LinkedHashMap<>(modelOf));
        adapters = Set.copyOf(adapters);
        loraCards = Map.copyOf(loraCards);
    }

    /** A list without adapters. */
    public ServedModels(boolean known, Map<String, String> modelOf) {
        this(known, modelOf, Set.of(), Map.of());
    }

    /** Whether a request for {@code name} may go here: listed, or the list is not known. */
    public boolean serves(String name) {
        return !known || modelOf.containsKey(name);
    }

    /** The names listed, in the endpoint's order (the first labels vLLM's metrics). */
    public List<String> names() {
        return List.copyOf(modelOf.keySet());
    }

    /** Reads a {@code /v1/models} answer; throws with a message saying what is wrong when it is not one. */
    public static ServedModels parse(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("/v1/models did not answer JSON: " + e.getOriginalMessage());
        }
        JsonNode data = root == null ? null : root.get("data");
        if (data == null || !data.isArray()) {
            throw new IllegalArgumentException("/v1/models answered without a 'data' array");
        }
        Map<String, String> firstNameOfWeights = new LinkedHashMap<>();
        Map<String, String> modelOf = new LinkedHashMap<>();
        Set<String> adapters = new HashSet<>();
        Map<String, LoraCard> cards = new LinkedHashMap<>();
        List<String> skipped = new ArrayList<>();
        for (JsonNode card : data) {
            JsonNode id = card.get("id");
            if (id == null || !id.isTextual() || id.asText().isEmpty()) {
                skipped.add(String.valueOf(card));
                continue;
            }
            String name = id.asText();
            JsonNode rootPath = card.get("root");
            JsonNode parent = card.get("parent");
            boolean alias = rootPath != null && rootPath.isTextual() && (parent == null || parent.isNull());
            modelOf.putIfAbsent(name, alias ? firstNameOfWeights.computeIfAbsent(rootPath.asText(), r -> name) : name);
            if (parent != null && parent.isTextual() && !parent.asText().isEmpty() && !parent.asText().equals(name)) {
                adapters.add(name);
                if (rootPath != null && rootPath.isTextual() && !rootPath.asText().isEmpty()) {
                    cards.putIfAbsent(name, new LoraCard(parent.asText(), rootPath.asText()));
                }
            }
        }
        if (modelOf.isEmpty() && !skipped.isEmpty()) {
            throw new IllegalArgumentException("/v1/models listed no card with an 'id'");
        }
        return new ServedModels(true, modelOf, adapters, cards);
    }
}
