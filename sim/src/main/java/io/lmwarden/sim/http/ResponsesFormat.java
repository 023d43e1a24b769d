package io.lmwarden.sim.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.sim.engine.FinishedRequest;

import java.util.ArrayList;
import java.util.List;

/**
 * OpenAI Responses API replies as vLLM's {@code /v1/responses} sends them for a plain text answer: streaming
 * {@code response.created}, {@code response.in_progress}, {@code response.output_item.added},
 * {@code response.content_part.added}, {@code response.output_text.delta}…, {@code response.output_text.done},
 * {@code response.content_part.done}, {@code response.output_item.done}, {@code response.completed}, each with
 * its {@code event:} line and a {@code sequence_number} counting from 0. A reply cut at max_output_tokens still
 * ends with {@code response.completed}, its status {@code incomplete} (vLLM's behaviour). Usage carries
 * {@code input_tokens_details.cached_tokens}.
 */
final class ResponsesFormat implements ReplyFormat {
    private final String id;
    private final String messageId;
    private final long created;
    private final String model;
    private final JsonNode request;
    private final int maxTokens;
    private final StringBuilder sent = new StringBuilder();
    private int sequence;

    ResponsesFormat(String id, String messageId, long created, String model, JsonNode request, int maxTokens) {
        this.id = id;
        this.messageId = messageId;
        this.created = created;
        this.model = model;
        this.request = request;
        this.maxTokens = maxTokens;
    }

    /** vLLM keeps no responses unless started with VLLM_ENABLE_RESPONSES_API_STORE=1; neither does the simulator. */
    static String notStoredMessage(String responseId) {
        return "Response with id '" + responseId + "' not found. This server stores no responses (like vLLM without "
                + "VLLM_ENABLE_RESPONSES_API_STORE=1), so previous_response_id cannot be resolved: send the whole "
                + "conversation in 'input' (Codex does, with store=false).";
    }

    @Override
    public List<String> first(String text, int promptTokens, int cachedTokens) {
        List<String> out = new ArrayList<>(6);
        ObjectNode initial = response("in_progress", null);
        out.add(event("response.created", e -> e.set("response", initial)));
        out.add(event("response.in_progress", e -> e.set("response", initial)));
        out.add(event("response.output_item.added", e -> {
            e.put("output_index", 0);
            ObjectNode item = e.putObject("item");
            item.put("id", messageId);
            item.put("type", "message");
            item.put("role", "assistant");
            item.putArray("content");
            item.put("status", "in_progress");
        }));
        out.add(event("response.content_part.added", e -> {
            e.put("output_index", 0);
            e.put("item_id", messageId);
            e.put("content_index", 0);
            outputText(e.putObject("part"), "").putArray("logprobs");
        }));
        out.addAll(delta(text));
        return out;
    }

    @Override
    public List<String> delta(String text) {
        sent.append(text);
        return List.of(event("response.output_text.delta", e -> {
            e.put("content_index", 0);
            e.put("output_index", 0);
            e.put("item_id", messageId);
            e.put("delta", text);
            e.putArray("logprobs");
        }));
    }

    @Override
    public List<String> finish(String text, FinishedRequest result) {
        List<String> out = new ArrayList<>(5);
        if (!text.isEmpty()) {
            out.addAll(delta(text));
        }
        String all = sent.toString();
        out.add(event("response.output_text.done", e -> {
            e.put("item_id", messageId);
            e.put("output_index", 0);
            e.put("content_index", 0);
            e.put("text", all);
            e.putArray("logprobs");
        }));
        out.add(event("response.content_part.done", e -> {
            e.put("item_id", messageId);
            e.put("output_index", 0);
            e.put("content_index", 0);
            outputText(e.putObject("part"), all);
        }));
        out.add(event("response.output_item.done", e -> {
            e.put("output_index", 0);
            e.set("item", message(all));
        }));
        ObjectNode done = response(status(result), result);
        done.putArray("output").add(message(all));
        out.add(event("response.completed", e -> e.set("response", done)));
        return out;
    }

    @Override
    public String complete(String text, FinishedRequest result) {
        ObjectNode r = response(status(result), result);
        r.putArray("output").add(message(text));
        return r.toString();
    }

    private static String status(FinishedRequest result) {
        return "length".equals(result.finishReason()) ? "incomplete" : "completed";
    }

    private interface Body {
        void fill(ObjectNode event);
    }

    private String event(String type, Body body) {
        ObjectNode e = Json.object();
        e.put("type", type);
        body.fill(e);
        e.put("sequence_number", sequence++);
        return ReplyFormat.sse(type, e.toString());
    }

    private ObjectNode message(String text) {
        ObjectNode item = Json.object();
        item.put("id", messageId);
        item.put("type", "message");
        item.put("role", "assistant");
        item.put("status", "completed");
        ArrayNode content = item.putArray("content");
        if (!text.isEmpty()) {
            outputText(content.addObject(), text).putArray("logprobs");
        }
        return item;
    }

    private static ObjectNode outputText(ObjectNode part, String text) {
        part.put("type", "output_text");
        part.put("text", text);
        part.putArray("annotations");
        return part;
    }

    /** The response object, echoing the request's settings as vLLM's ResponsesResponse.from_request does. */
    private ObjectNode response(String status, FinishedRequest result) {
        ObjectNode r = Json.object();
        r.put("id", id);
        r.put("object", "response");
        r.put("created_at", created);
        r.put("model", model);
        r.put("status", status);
        r.putNull("error");
        if ("incomplete".equals(status)) {
            r.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            r.putNull("incomplete_details");
        }
        copyOrNull(r, "instructions");
        r.set("metadata", request.hasNonNull("metadata") ? request.get("metadata") : Json.object());
        r.putArray("output");
        r.put("parallel_tool_calls", request.path("parallel_tool_calls").asBoolean(true));
        r.put("temperature", request.path("temperature").asDouble(1.0));
        r.set("tool_choice", request.hasNonNull("tool_choice") ? request.get("tool_choice") : Json.MAPPER.getNodeFactory().textNode("auto"));
        r.set("tools", request.has("tools") && request.get("tools").isArray() ? request.get("tools") : Json.MAPPER.createArrayNode());
        r.put("top_p", request.path("top_p").asDouble(1.0));
        r.put("background", false);
        r.put("max_output_tokens", maxTokens);
        r.putNull("max_tool_calls");
        r.putNull("previous_response_id");
        r.putNull("prompt");
        copyOrNull(r, "reasoning");
        r.put("service_tier", "auto");
        r.set("text", request.hasNonNull("text") ? request.get("text") : textFormat());
        r.putNull("top_logprobs");
        r.put("truncation", "disabled");
        copyOrNull(r, "user");
        if (result == null) {
            r.putNull("usage");
        } else {
            ObjectNode u = r.putObject("usage");
            u.put("input_tokens", result.promptTokens());
            u.putObject("input_tokens_details").put("cached_tokens", result.cachedTokens());
            u.put("output_tokens", result.outputTokens());
            u.putObject("output_tokens_details").put("reasoning_tokens", 0);
            u.put("total_tokens", result.promptTokens() + result.outputTokens());
        }
        return r;
    }

    private void copyOrNull(ObjectNode r, String field) {
        if (request.hasNonNull(field)) {
            r.set(field, request.get(field));
        } else {
            r.putNull(field);
        }
    }

    private static ObjectNode textFormat() {
        ObjectNode t = Json.object();
        t.putObject("format").put("type", "text");
        return t;
    }
}
