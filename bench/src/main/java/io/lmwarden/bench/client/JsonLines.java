package io.lmwarden.bench.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Small helpers for the few JSON fields the interpreters read. */
final class JsonLines {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonLines() {
    }

    static JsonNode parse(String data) {
        try {
            return MAPPER.readTree(data);
        } catch (java.io.IOException e) {
            return null;
        }
    }

    static int intOr(JsonNode node, String field, int fallback) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isNumber() ? v.asInt() : fallback;
    }

    static String errorMessage(JsonNode error) {
        if (error == null || error.isNull()) {
            return null;
        }
        if (error.isTextual()) {
            return error.asText();
        }
        JsonNode message = error.get("message");
        return message != null ? message.asText() : error.toString();
    }
}
