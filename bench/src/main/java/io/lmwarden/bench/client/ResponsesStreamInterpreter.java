package io.lmwarden.bench.client;

import com.fasterxml.jackson.databind.JsonNode;

/** OpenAI Responses SSE: response.output_text.delta (text), response.completed (usage), error / response.failed. */
final class ResponsesStreamInterpreter extends StreamTally {

    @Override
    public boolean onData(String data) {
        JsonNode event = JsonLines.parse(data);
        if (event == null) {
            error = "unparseable SSE data";
            return false;
        }
        switch (event.path("type").asText("")) {
            case "response.output_text.delta" -> {
                String text = event.path("delta").asText("");
                reply.append(text);
                return !text.isEmpty();
            }
            case "response.completed", "response.incomplete" -> {
                JsonNode usage = event.path("response").path("usage");
                promptTokens = JsonLines.intOr(usage, "input_tokens", promptTokens);
                outputTokens = JsonLines.intOr(usage, "output_tokens", outputTokens);
                cachedTokens = JsonLines.intOr(usage.path("input_tokens_details"), "cached_tokens", cachedTokens);
                completed = true;
            }
            case "error" -> error = JsonLines.errorMessage(event.has("error") ? event.get("error") : event);
            case "response.failed" -> error = JsonLines.errorMessage(event.path("response").path("error"));
            default -> {
                // created, in_progress, output_item / content_part events carry nothing the measurement needs
            }
        }
        return false;
    }
}
