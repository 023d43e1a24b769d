package io.lmwarden.bench.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.lmwarden.bench.workload.Conversation;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/** The two API dialects the load generator speaks: Anthropic Messages (Claude Code) and OpenAI Chat. */
public enum ApiFlavour {
    ANTHROPIC("/v1/messages", "X-Claude-Code-Session-Id"),
    OPENAI("/v1/chat/completions", "X-Session-Id");

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
            default -> throw new IllegalArgumentException("--api must be 'anthropic' or 'openai', got '" + text + "'");
        };
    }

    public String path() {
        return path;
    }

    /** The header that carries the session id, the way the flavour's agents send it. */
    public String sessionHeader() {
        return sessionHeader;
    }

    public StreamInterpreter newInterpreter() {
        return this == ANTHROPIC ? new AnthropicStreamInterpreter() : new OpenAiStreamInterpreter();
    }

    /** A streaming request body for the whole conversation so far. */
    public byte[] requestBody(String model, int maxTokens, Conversation conversation) {
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

    private static void writeMessage(JsonGenerator g, String role, String text) throws IOException {
        g.writeStartObject();
        g.writeStringField("role", role);
        g.writeStringField("content", text);
        g.writeEndObject();
    }
}
