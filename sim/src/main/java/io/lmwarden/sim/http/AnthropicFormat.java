package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.sim.engine.FinishedRequest;

import java.util.ArrayList;
import java.util.List;

/**
 * Anthropic Messages replies. Usage follows Anthropic's meaning: {@code input_tokens} are the prompt tokens
 * not read from cache, {@code cache_read_input_tokens} the cached ones (their sum is the prompt).
 */
final class AnthropicFormat implements ReplyFormat {
    private final String id;
    private final String model;

    AnthropicFormat(String id, String model) {
        this.id = id;
        this.model = model;
    }

    @Override
    public List<String> first(String text, int promptTokens, int cachedTokens) {
        List<String> out = new ArrayList<>(4);
        ObjectNode start = Json.object();
        start.put("type", "message_start");
        ObjectNode msg = message(start.putObject("message"));
        msg.putArray("content");
        msg.putNull("stop_reason");
        msg.putNull("stop_sequence");
        msg.set("usage", usage(promptTokens, cachedTokens, 1));
        out.add(ReplyFormat.sse("message_start", start.toString()));
        ObjectNode blockStart = Json.object();
        blockStart.put("type", "content_block_start");
        blockStart.put("index", 0);
        ObjectNode block = blockStart.putObject("content_block");
        block.put("type", "text");
        block.put("text", "");
        out.add(ReplyFormat.sse("content_block_start", blockStart.toString()));
        out.add(ReplyFormat.sse("ping", "{\"type\": \"ping\"}"));
        out.addAll(delta(text));
        return out;
    }

    @Override
    public List<String> delta(String text) {
        ObjectNode d = Json.object();
        d.put("type", "content_block_delta");
        d.put("index", 0);
        ObjectNode delta = d.putObject("delta");
        delta.put("type", "text_delta");
        delta.put("text", text);
        return List.of(ReplyFormat.sse("content_block_delta", d.toString()));
    }

    @Override
    public List<String> finish(String text, FinishedRequest result) {
        List<String> out = new ArrayList<>(4);
        if (!text.isEmpty()) {
            out.addAll(delta(text));
        }
        out.add(ReplyFormat.sse("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"));
        ObjectNode md = Json.object();
        md.put("type", "message_delta");
        ObjectNode delta = md.putObject("delta");
        delta.put("stop_reason", stopReason(result));
        delta.putNull("stop_sequence");
        md.set("usage", usage(result.promptTokens(), result.cachedTokens(), result.outputTokens()));
        out.add(ReplyFormat.sse("message_delta", md.toString()));
        out.add(ReplyFormat.sse("message_stop", "{\"type\":\"message_stop\"}"));
        return out;
    }

    @Override
    public String complete(String text, FinishedRequest result) {
        ObjectNode msg = message(Json.object());
        ObjectNode block = msg.putArray("content").addObject();
        block.put("type", "text");
        block.put("text", text);
        msg.put("stop_reason", stopReason(result));
        msg.putNull("stop_sequence");
        msg.set("usage", usage(result.promptTokens(), result.cachedTokens(), result.outputTokens()));
        return msg.toString();
    }

    private ObjectNode message(ObjectNode msg) {
        msg.put("id", id);
        msg.put("type", "message");
        msg.put("role", "assistant");
        msg.put("model", model);
        return msg;
    }

    private static String stopReason(FinishedRequest r) {
        return "length".equals(r.finishReason()) ? "max_tokens" : "end_turn";
    }

    private static ObjectNode usage(int promptTokens, int cachedTokens, int outputTokens) {
        ObjectNode u = Json.object();
        u.put("input_tokens", promptTokens - cachedTokens);
        u.put("cache_creation_input_tokens", 0);
        u.put("cache_read_input_tokens", cachedTokens);
        u.put("output_tokens", outputTokens);
        ObjectNode creation = u.putObject("cache_creation");
        creation.put("ephemeral_5m_input_tokens", 0);
        creation.put("ephemeral_1h_input_tokens", 0);
        u.putNull("server_tool_use");
        u.put("service_tier", "standard");
        return u;
    }
}
