package io.lmwarden.router.session;

import io.lmwarden.common.api.ApiDialect;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads the few fields placement needs from a request body with Jackson's streaming parser (never a
 * full tree) and renders the canonical prompt; which of them names the session is the
 * {@link SessionKeyResolver}'s call.
 */
public final class RequestFactsReader {

    /** Claude Code's first system block changes on every request and is not part of the prompt. */
    static final String BILLING_HEADER_PREFIX = "x-anthropic-billing-header";
    private static final int COMPLETIONS_FINGERPRINT_CHARS = 4096;
    /** Hugging Face ids are at most 96 characters; a served name of a few hundred is already odd. */
    static final int MAX_MODEL_CHARS = 512;
    /** A body beyond this is mostly media or tool output the prompt text leaves out; its text buffer grows as needed. */
    private static final int MAX_PRESIZED_CHARS = 1 << 20;

    private final JsonFactory json;
    private final SessionKeyResolver keys;

    public RequestFactsReader(SessionKeyResolver keys) {
        this.keys = keys;
        this.json = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                .build();
    }

    /**
     * @param header case-insensitive header lookup, null when absent
     */
    public RequestFacts read(ApiDialect dialect, byte[] body, Function<String, String> header) throws MalformedRequestException {
        return read(dialect, body, header, Tenant.NONE);
    }

    /**
     * @param tenant whose namespace the session key and the prompt's block hashes are in: another tenant's
     *               identical prompt or session id never matches them
     */
    public RequestFacts read(ApiDialect dialect, byte[] body, Function<String, String> header, Tenant tenant)
            throws MalformedRequestException {
        Body b = parse(body);
        // The canonical text is about as long as the body (less its JSON syntax): sized once, not grown by copying.
        CanonicalPrompt prompt = new CanonicalPrompt(tenant.present() ? CanonicalPrompt.hashBlock(0, tenant.id(), 0, tenant.id().length()) : 0,
                Math.min(body.length, MAX_PRESIZED_CHARS) + 64);
        Rendered r = render(b, prompt);
        PromptShape shape = prompt.shape();
        // The lineage and fingerprint hashes are each a pass over the prompt: only a request without a session key needs them.
        SessionKey key = keys.resolve(new SessionKeyFields(b.metadataUserId, b.promptCacheKey, b.conversation, b.user,
                () -> prompt.hashOfPrefix(r.fixedStartEnd()), () -> prompt.hashesOfPrefixes(r.messageEnds())), header).inTenant(tenant.id());
        Optional<String> pinned = Optional.ofNullable(header.apply("x-lmw-replica")).map(String::trim).filter(s -> !s.isEmpty());
        Optional<Integer> rank = Optional.empty();
        String rankHeader = header.apply("x-data-parallel-rank");
        if (rankHeader != null && !rankHeader.isBlank()) {
            try {
                rank = Optional.of(Integer.parseInt(rankHeader.trim()));
            } catch (NumberFormatException e) {
                throw new MalformedRequestException("header X-data-parallel-rank must be an integer, got '" + rankHeader + "'");
            }
            if (rank.get() < 0) {
                throw new MalformedRequestException("header X-data-parallel-rank must be >= 0, got " + rank.get());
            }
        }
        String model = b.model == null ? "" : b.model;
        return new RequestFacts(dialect, model, b.stream, key, shape, b.maxTokens, pinned, rank, tenant, b.cacheSalt, model,
                new PromptText(prompt.text()));
    }

    // ---- parsing -------------------------------------------------------------------------------

    /** The fields of interest, as read; text parts are kept raw until rendered in canonical order. */
    private static final class Body {
        String model;
        boolean stream;
        int maxTokens = -1;
        String user;
        String promptCacheKey;
        String conversation;
        String metadataUserId;
        final List<String> systemBlocks = new ArrayList<>();
        final List<String> tools = new ArrayList<>();
        final List<Message> messages = new ArrayList<>();
        String instructions;
        String prompt;
        final JsonSpans cacheSalt = new JsonSpans();
    }

    /** A message's text stays in the buffer it was read into until rendered: copied once, not twice. */
    private record Message(String role, CharSequence text) {
    }

    private Body parse(byte[] body) throws MalformedRequestException {
        Body b = new Body();
        try (JsonParser p = json.createParser(body)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new MalformedRequestException("request body is empty; send a JSON object");
            }
            if (first != JsonToken.START_OBJECT) {
                throw new MalformedRequestException("request body must be a JSON object, got " + describe(first));
            }
            int openBrace = (int) p.currentTokenLocation().getByteOffset();
            boolean empty = true;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                empty = false;
                String name = p.currentName();
                JsonToken t = p.nextToken();
                switch (name) {
                    case "model" -> b.model = model(p, t);
                    case "stream" -> b.stream = stream(t);
                    case "max_tokens", "max_completion_tokens", "max_output_tokens" -> b.maxTokens = maxTokens(p, t, name);
                    case "cache_salt" -> {
                        int start = (int) p.currentTokenLocation().getByteOffset();
                        if (t == JsonToken.VALUE_STRING) {
                            p.getText();
                        } else {
                            p.skipChildren();
                        }
                        b.cacheSalt.add(start, (int) p.currentLocation().getByteOffset());
                    }
                    case "user" -> b.user = t == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                    case "prompt_cache_key" -> b.promptCacheKey = t == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                    case "conversation_id" -> b.conversation = t == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                    case "conversation" -> b.conversation = conversationId(p, t);
                    case "metadata" -> b.metadataUserId = metadataUserId(p, t);
                    case "system" -> readSystem(p, t, b);
                    case "instructions" -> b.instructions = t == JsonToken.VALUE_STRING ? p.getText() : raw(p);
                    case "tools", "functions" -> readArrayRaw(p, t, b.tools);
                    case "messages" -> readMessages(p, t, b.messages);
                    case "input" -> readInput(p, t, b);
                    case "prompt" -> b.prompt = t == JsonToken.VALUE_STRING ? p.getText() : raw(p);
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw new MalformedRequestException("request body is not a complete JSON object");
            }
            b.cacheSalt.object(openBrace, empty);
            if (p.nextToken() != null) {
                throw new MalformedRequestException("request body has content after the JSON object");
            }
        } catch (StreamConstraintsException e) {
            // Nesting, number or name beyond the parser's limits: valid JSON perhaps, but no request needs it.
            throw new MalformedRequestException("request body exceeds the router's JSON limits: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw new MalformedRequestException("request body is not valid JSON: " + e.getOriginalMessage()
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        } catch (IOException e) {
            throw new MalformedRequestException("request body cannot be read: " + e.getMessage());
        }
        return b;
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case START_OBJECT -> "an object";
            default -> t.toString();
        };
    }

    private static String stringOrNull(JsonParser p, JsonToken t, String field) throws IOException, MalformedRequestException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw new MalformedRequestException("field '" + field + "' must be a string, got " + describe(t));
        }
        return p.getText();
    }

    private static String model(JsonParser p, JsonToken t) throws IOException, MalformedRequestException {
        String m = stringOrNull(p, t, "model");
        if (m != null && m.length() > MAX_MODEL_CHARS) {
            throw new MalformedRequestException("field 'model' is " + m.length() + " characters long; a model name has at most "
                    + MAX_MODEL_CHARS + " (see GET /v1/models)");
        }
        return m;
    }

    /** A string "true" would be read as false here while the engine's lax parser streams: reject it instead. */
    private static boolean stream(JsonToken t) throws MalformedRequestException {
        return switch (t) {
            case VALUE_TRUE -> true;
            case VALUE_FALSE, VALUE_NULL -> false;
            default -> throw new MalformedRequestException("field 'stream' must be a boolean (true or false), got " + describe(t));
        };
    }

    private static int maxTokens(JsonParser p, JsonToken t, String field) throws IOException, MalformedRequestException {
        if (t == JsonToken.VALUE_NULL) {
            return -1;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw new MalformedRequestException("field '" + field + "' must be an integer, got " + describe(t));
        }
        if (p.getNumberType() != JsonParser.NumberType.INT || p.getIntValue() < 1) {
            throw new MalformedRequestException("field '" + field + "' must be between 1 and " + Integer.MAX_VALUE
                    + ", got " + abbreviate(p.getText()));
        }
        return p.getIntValue();
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 20) + "…(" + s.length() + " digits)";
    }

    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    private String raw(JsonParser p) throws IOException {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = json.createGenerator(w)) {
            g.copyCurrentStructure(p);
        }
        return w.toString();
    }

    /** {@code conversation} is a string id or an object with an {@code id}. */
    private static String conversationId(JsonParser p, JsonToken t) throws IOException {
        return t == JsonToken.VALUE_STRING ? p.getText() : stringFieldOf(p, t, "id");
    }

    private static String metadataUserId(JsonParser p, JsonToken t) throws IOException {
        return stringFieldOf(p, t, "user_id");
    }

    /** One string field of an object value, the rest skipped; null when absent or not an object. */
    private static String stringFieldOf(JsonParser p, JsonToken t, String field) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return null;
        }
        String value = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals(name) && v == JsonToken.VALUE_STRING) {
                value = p.getText();
            } else {
                p.skipChildren();
            }
        }
        return value;
    }

    private void readSystem(JsonParser p, JsonToken t, Body b) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            addSystemBlock(b, p.getText());
            return;
        }
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                addSystemBlock(b, p.getText());
            } else if (p.currentToken() == JsonToken.START_OBJECT) {
                StringBuilder sb = new StringBuilder();
                readContentBlock(p, sb);
                addSystemBlock(b, sb.toString());
            } else {
                p.skipChildren();
            }
        }
    }

    private static void addSystemBlock(Body b, String text) {
        if (!text.startsWith(BILLING_HEADER_PREFIX)) {
            b.systemBlocks.add(text);
        }
    }

    private void readArrayRaw(JsonParser p, JsonToken t, List<String> out) throws IOException {
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            out.add(raw(p));
        }
    }

    private void readMessages(JsonParser p, JsonToken t, List<Message> out) throws IOException, MalformedRequestException {
        if (t != JsonToken.START_ARRAY) {
            if (t != JsonToken.VALUE_NULL) {
                throw new MalformedRequestException("field 'messages' must be an array, got " + describe(t));
            }
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw new MalformedRequestException("each entry of 'messages' must be an object, got " + describe(p.currentToken()));
            }
            out.add(readMessage(p));
        }
    }

    /** One message object: its role and the text of its content, whatever form the content takes. */
    private Message readMessage(JsonParser p) throws IOException {
        String role = "user";
        StringBuilder text = new StringBuilder();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            switch (name) {
                case "role" -> role = v == JsonToken.VALUE_STRING ? p.getText() : role;
                case "content" -> readContent(p, v, text);
                case "type" -> {
                    if (v == JsonToken.VALUE_STRING) {
                        text.append('[').append(p.getText()).append(']');
                    }
                }
                case "tool_calls", "function_call", "name", "arguments", "call_id", "output", "tool_call_id" -> {
                    text.append(name).append('=');
                    if (v == JsonToken.VALUE_STRING) {
                        text.append(p.getText());
                    } else {
                        text.append(raw(p));
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new Message(role, text);
    }

    private void readContent(JsonParser p, JsonToken t, StringBuilder out) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            appendText(p, out);
        } else if (t == JsonToken.START_ARRAY) {
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() == JsonToken.VALUE_STRING) {
                    appendText(p, out);
                } else if (p.currentToken() == JsonToken.START_OBJECT) {
                    readContentBlock(p, out);
                } else {
                    p.skipChildren();
                }
                out.append('\n');
            }
        } else if (t == JsonToken.START_OBJECT) {
            out.append(raw(p));
        }
    }

    /**
     * A content block: text, tool_use, tool_result, image…; rendered as its text, or for other kinds
     * as a type marker plus their identifying fields.
     */
    private void readContentBlock(JsonParser p, StringBuilder out) throws IOException {
        StringBuilder block = new StringBuilder();
        String type = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            switch (name) {
                case "text", "thinking" -> {
                    if (v == JsonToken.VALUE_STRING) {
                        appendText(p, block);
                    } else {
                        p.skipChildren();
                    }
                }
                case "content" -> readContent(p, v, block);
                case "name", "id", "tool_use_id" -> block.append(name).append('=').append(v == JsonToken.VALUE_STRING ? p.getText() : raw(p)).append(' ');
                case "input" -> block.append(raw(p));
                case "type" -> type = v == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                // cache_control marks where a client would like a cache breakpoint; not prompt text.
                case "cache_control" -> p.skipChildren();
                // Image data would only inflate the shape; its identity is enough.
                case "source", "image_url" -> block.append("[media ").append(Integer.toHexString(raw(p).hashCode())).append(']');
                default -> p.skipChildren();
            }
        }
        if (type != null && !type.equals("text")) {
            out.append('[').append(type).append(']');
        }
        out.append(block);
    }

    /** The current string value, appended from the parser's own buffer: no String is made of a prompt's text. */
    private static void appendText(JsonParser p, StringBuilder out) throws IOException {
        out.append(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
    }

    private void readInput(JsonParser p, JsonToken t, Body b) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            b.messages.add(new Message("user", p.getText()));
            return;
        }
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == JsonToken.START_OBJECT) {
                b.messages.add(readMessage(p));
            } else if (p.currentToken() == JsonToken.VALUE_STRING) {
                b.messages.add(new Message("user", p.getText()));
            } else {
                p.skipChildren();
            }
        }
    }

    // ---- rendering -----------------------------------------------------------------------------

    /**
     * Where a rendered prompt's parts end: the conversation's fixed start (everything up to and
     * including the first user turn) and each message; no message ends for a plain {@code prompt}.
     */
    private record Rendered(int fixedStartEnd, int[] messageEnds) {
    }

    /** Renders the prompt in template order (system, tools, messages). */
    private Rendered render(Body b, CanonicalPrompt out) {
        if (b.prompt != null) {
            out.segment("prompt", "prompt").append(b.prompt);
            return new Rendered(Math.min(out.length(), COMPLETIONS_FINGERPRINT_CHARS), new int[0]);
        }
        if (!b.systemBlocks.isEmpty() || b.instructions != null) {
            out.segment("system", "system");
            if (b.instructions != null) {
                out.append(b.instructions).append("\n");
            }
            for (String s : b.systemBlocks) {
                out.append(s).append("\n");
            }
        }
        if (!b.tools.isEmpty()) {
            out.segment("tools", "tools");
            for (String tool : b.tools) {
                out.append(tool).append("\n");
            }
        }
        int fixedStartEnd = -1;
        int[] messageEnds = new int[b.messages.size()];
        int n = 0;
        for (Message m : b.messages) {
            boolean systemLike = m.role.equals("system") || m.role.equals("developer");
            out.segment(systemLike ? "system" : "message " + (n + 1) + " (" + m.role + ")", m.role).append(m.text).append("\n");
            messageEnds[n++] = out.length();
            if (fixedStartEnd < 0 && m.role.equals("user")) {
                fixedStartEnd = out.length();
            }
        }
        return new Rendered(fixedStartEnd < 0 ? out.length() : fixedStartEnd, messageEnds);
    }
}
