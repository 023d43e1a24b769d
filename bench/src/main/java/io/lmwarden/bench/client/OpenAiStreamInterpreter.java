package io.lmwarden.bench.client;

import com.fasterxml.jackson.databind.JsonNode;

/** OpenAI Chat Completions SSE: choices[].delta.content, a final usage chunk, {@code [DONE]}, error objects. */
final class OpenAiStreamInterpreter extends StreamTally {

    @Override
    public boolean onData(String data) {
        if ("[DONE]".equals(data)) {
            completed = true;
            return false;
        }
        JsonNode chunk = JsonLines.parse(data);
        if (chunk == null) {
            error = "unparseable SSE data";
            return false;
        }
        if (chunk.has("error")) {
            error = JsonLines.errorMessage(chunk.get("error"));
            overloaded = chunk.path("error").path("code").asInt() == 429;
            return false;
        }
        JsonNode usage = chunk.get("usage");
        if (usage != null && usage.isObject()) {
            promptTokens = JsonLines.intOr(usage, "prompt_tokens", promptTokens);
            outputTokens = JsonLines.intOr(usage, "completion_tokens", outputTokens);
            cachedTokens = JsonLines.intOr(usage.path("prompt_tokens_details"), "cached_tokens", cachedTokens);
        }
        boolean text = false;
        for (JsonNode choice : chunk.path("choices")) {
            String content = choice.path("delta").path("content").asText("");
            if (!content.isEmpty()) {
                reply.append(content);
                text = true;
            }
        }
        return text;
    }
}
