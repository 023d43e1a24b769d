package io.lmwarden.bench.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.lmwarden.bench.workload.Conversation;
import io.lmwarden.bench.workload.SessionKeying;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/** The API dialects the load generator speaks: Anthropic Messages (Claude Code), OpenAI Chat and OpenAI Responses (Codex). */
public enum ApiFlavour {
    ANTHROPIC("/v1/messages", "X-Claude-Code-Session-Id"),
    OPENAI("/v1/chat/completions", "X-Session-Id"),
    RESPONSES("/v1/responses", "session-id");

    private static final JsonFactory JSON = new JsonFactory();

    private final String path;
    private final String sessionHeader;

    ApiFlavour(String path, String sessionHeader) {
        this.path = path;
        this.sessionHeader = sessionHeader;
    }

    public static ApiFlavour parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "anthropic" -> ANTHROPIC;
            case "openai" -> OPENAI;
            case "responses" -> RESPONSES;
            default -> throw new IllegalArgumentException("--api must be 'anthropic', 'openai' or 'responses', got '" + text + "'");
        };
    }

    public String path() {
        return path;
    }

    /** The header that carries the session id, the way the flavour's agents send it. */
    public String sessionHeader() {
        return sessionHeader;
    }

    /** How this flavour's agents key their sessions by default. */
    public SessionKeying defaultKeying() {
        return switch (this) {
            case ANTHROPIC -> SessionKeying.CLAUDE_CODE_HEADER;
            case OPENAI -> SessionKeying.SESSION_ID_HEADER;
            case RESPONSES -> SessionKeying.CODEX_SESSION_ID;
        };
    }

    public StreamInterpreter newInterpreter() {
        return switch (this) {
            case ANTHROPIC -> new AnthropicStreamInterpreter();
            case OPENAI -> new OpenAiStreamInterpreter();
            case RESPONSES -> new ResponsesStreamInterpreter();
        };
    }

    /** A streaming request body for the whole conversation so far. */
    public byte[] requestBody(String model, int maxTokens, Conversation conversation) {
        return requestBody(model, maxTokens, conversation, null);
    }

    /**
     * As {@link #requestBody(String, int, Conversation)}; {@code metadataSessionId} (Anthropic only, or null) goes
     * into {@code metadata.user_id} as Claude Code's JSON form.
     */
    public byte[] requestBody(String model, int maxTokens, Conversation conversation, String metadataSessionId) {
        if (this == RESPONSES) {
            return responsesBody(model, maxTokens, conversation);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, conversation.promptChars() + 512));
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model", model);
            g.writeNumberField("max_tokens", maxTokens);
            g.writeBooleanField("stream", true);
            if (this == ANTHROPIC) {
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
            if (this == OPENAI && !conversation.system().isEmpty()) {
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

    private static void writeMessage(JsonGenerator g, String role, String text) throws IOException {
        g.writeStartObject();
        g.writeStringField("role", role);
        g.writeStringField("content", text);
        g.writeEndObject();
    }
}
