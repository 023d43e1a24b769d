package io.lmwarden.bench.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.lmwarden.bench.workload.Conversation;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.bench.workload.SessionKeying;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * How the load generator's agents speak each API ({@link ApiDialect}) it supports: Anthropic Messages (Claude Code),
 * OpenAI Chat and OpenAI Responses (Codex): the header their session id travels in, how they key sessions, the body
 * of a step and the reader of its stream.
 */
public final class AgentApis {

    private static final JsonFactory JSON = new JsonFactory();

    private AgentApis() {
    }

    /** The header that carries the session id, the way the API's agents send it. */
    public static String sessionHeader(ApiDialect api) {
        return switch (supported(api)) {
            case ANTHROPIC_MESSAGES -> "X-Claude-Code-Session-Id";
            case OPENAI_CHAT -> "X-Session-Id";
            default -> "session-id";
        };
    }

    public static StreamInterpreter newInterpreter(ApiDialect api) {
        return switch (supported(api)) {
            case ANTHROPIC_MESSAGES -> new AnthropicStreamInterpreter();
            case OPENAI_CHAT -> new OpenAiStreamInterpreter();
            default -> new ResponsesStreamInterpreter();
        };
    }

    /** A streaming request body for the whole conversation so far. */
    public static byte[] requestBody(ApiDialect api, String model, int maxTokens, Conversation conversation) {
        return requestBody(api, model, maxTokens, conversation, null);
    }

    /**
     * As {@link #requestBody(ApiDialect, String, int, Conversation)}; {@code metadataSessionId} (Anthropic only, or null)
     * goes into {@code metadata.user_id} as Claude Code's JSON form.
     */
    public static byte[] requestBody(ApiDialect api, String model, int maxTokens, Conversation conversation, String metadataSessionId) {
        if (supported(api) == ApiDialect.OPENAI_RESPONSES) {
            return responsesBody(model, maxTokens, conversation);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, conversation.promptChars() + 512));
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model", model);
            g.writeNumberField("max_tokens", maxTokens);
            g.writeBooleanField("stream", true);
            if (api == ApiDialect.ANTHROPIC_MESSAGES) {
                if (!conversation.system().isEmpty()) {
                    g.writeStringField("system", conversation.system());
                }
                if (metadataSessionId != null) {
                    g.writeObjectFieldStart("metadata");
                    g.writeStringField("user_id", "{\"device_id\":\"lmw-bench\",\"session_id\":\"" + metadataSessionId + "\"}");
                    g.writeEndObject();
                }
            } else {
                g.writeObjectFieldStart("stream_options");
                g.writeBooleanField("include_usage", true);
                g.writeEndObject();
            }
            g.writeArrayFieldStart("messages");
            if (api == ApiDialect.OPENAI_CHAT && !conversation.system().isEmpty()) {
                writeMessage(g, "system", conversation.system());
            }
            for (Conversation.Turn turn : conversation.turns()) {
                writeMessage(g, turn.role(), turn.text());
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Codex's shape: instructions, the whole conversation as input messages, store false. */
    private static byte[] responsesBody(String model, int maxTokens, Conversation conversation) {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, conversation.promptChars() + 512));
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model", model);
            g.writeNumberField("max_output_tokens", maxTokens);
            g.writeBooleanField("stream", true);
            g.writeBooleanField("store", false);
            if (!conversation.system().isEmpty()) {
                g.writeStringField("instructions", conversation.system());
            }
            g.writeArrayFieldStart("input");
            for (Conversation.Turn turn : conversation.turns()) {
                g.writeStartObject();
                g.writeStringField("type", "message");
                g.writeStringField("role", turn.role());
                g.writeStringField("content", turn.text());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The APIs the agents speak: not the completions API, nor count_tokens, which are no agent's. */
    private static ApiDialect supported(ApiDialect api) {
        if (api != ApiDialect.ANTHROPIC_MESSAGES && api != ApiDialect.OPENAI_CHAT && api != ApiDialect.OPENAI_RESPONSES) {
            throw new IllegalArgumentException("the bench's agents do not speak " + api.path());
        }
        return api;
    }

    private static void writeMessage(JsonGenerator g, String role, String text) throws IOException {
        g.writeStartObject();
        g.writeStringField("role", role);
        g.writeStringField("content", text);
        g.writeEndObject();
    }
}
