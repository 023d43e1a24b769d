package io.lmwarden.bench.client;

import com.fasterxml.jackson.databind.JsonNode;

/** Anthropic Messages SSE: message_start (usage), content_block_delta (text), message_delta, message_stop, error. */
final class AnthropicStreamInterpreter extends StreamTally {

    @Override
    public boolean onData(String data) {
        JsonNode event = JsonLines.parse(data);
        if (event == null) {
            error = "unparseable SSE data";
            return false;
        }
        String type = event.path("type").asText("");
        switch (type) {
            case "content_block_delta" -> {
                String text = event.path("delta").path("text").asText("");
                reply.append(text);
                return !text.isEmpty();
            }
            case "message_start" -> readUsage(event.path("message").path("usage"));
            case "message_delta" -> readUsage(event.path("usage"));
            case "message_stop" -> completed = true;
            case "error" -> {
                error = JsonLines.errorMessage(event.get("error"));
                overloaded = "overloaded_error".equals(event.path("error").path("type").asText());
            }
            default -> {
                // ping, content_block_start/stop carry nothing the measurement needs
            }
        }
        return false;
    }

    private void readUsage(JsonNode usage) {
        if (usage.isMissingNode() || usage.isNull()) {
            return;
        }
        int input = JsonLines.intOr(usage, "input_tokens", -1);
        int cacheRead = JsonLines.intOr(usage, "cache_read_input_tokens", -1);
        int cacheCreation = JsonLines.intOr(usage, "cache_creation_input_tokens", 0);
        if (input >= 0) {
            // Anthropic counts cached tokens apart from input_tokens; the prompt is their sum.
            promptTokens = input + Math.max(0, cacheRead) + Math.max(0, cacheCreation);
        }
        if (cacheRead >= 0) {
            cachedTokens = cacheRead;
        }
        int output = JsonLines.intOr(usage, "output_tokens", -1);
        if (output >= 0) {
            outputTokens = output;
        }
    }
}
