package io.lmwarden.router.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A coding-agent conversation that grows step by step like Claude Code's: a shared system prompt
 * (after the per-request billing header), a long unique first user turn, then each step appends the
 * assistant's reply and a new user turn.
 */
public final class AgentSession {

    /**
     * How the session identifies itself. {@code TEMPLATE}: no session key, and the first user message
     * is the same for every session (agents started from one template); later turns differ.
     */
    public enum Identity { CLAUDE_CODE_HEADER, METADATA_USER_ID, NONE, TEMPLATE }

    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";

    private final String id;
    private final Identity identity;
    private final String system;
    private final ArrayNode messages = JSON.createArrayNode();
    private final Random random;
    private int step;
    private String model = MODEL;

    public AgentSession(String id, Identity identity, String sharedSystem, int firstTurnChars, long seed) {
        this.id = id;
        this.identity = identity;
        this.system = sharedSystem;
        this.random = new Random(seed);
        ObjectNode first = messages.addObject();
        first.put("role", "user");
        first.put("content", identity == Identity.TEMPLATE
                ? "<system-reminder>today is a day</system-reminder>\ntask: " + words(new Random(11), firstTurnChars)
                : "<system-reminder>today is a day</system-reminder>\nsession " + id + ": " + words(firstTurnChars));
    }

    public static String sharedSystem(int chars) {
        return words(new Random(7), chars);
    }

    public String id() {
        return id;
    }

    public int step() {
        return step;
    }

    /** Names the model by {@code name} from the next step on (a served alias, say). */
    public AgentSession model(String name) {
        this.model = name;
        return this;
    }

    /** The body of the next step (Anthropic Messages API). */
    public String nextBody(int maxTokens, boolean stream) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", model);
        body.put("max_tokens", maxTokens);
        body.put("stream", stream);
        ArrayNode sys = body.putArray("system");
        sys.addObject().put("type", "text").put("text", "x-anthropic-billing-header: cc_version=2.1." + step + "; cc_entrypoint=cli;");
        sys.addObject().put("type", "text").put("text", system);
        if (identity == Identity.METADATA_USER_ID) {
            body.putObject("metadata").put("user_id",
                    "{\"device_id\":\"dev1\",\"account_uuid\":\"acc1\",\"session_id\":\"" + id + "\"}");
        }
        body.set("messages", messages.deepCopy());
        step++;
        try {
            return JSON.writeValueAsString(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        if (identity == Identity.CLAUDE_CODE_HEADER) {
            h.put("X-Claude-Code-Session-Id", id);
        }
        h.put("anthropic-version", "2023-06-01");
        return h;
    }

    /** Appends the assistant's reply and a new user turn of about {@code chars} characters. */
    public void append(String reply, int chars) {
        messages.addObject().put("role", "assistant").put("content", reply);
        messages.addObject().put("role", "user").put("content", "tool result " + step + ": " + words(chars));
    }

    private String words(int chars) {
        return words(random, chars);
    }

    static String words(Random r, int chars) {
        StringBuilder sb = new StringBuilder(chars + 16);
        String[] vocab = {"alpha", "beta", "gamma", "delta", "kernel", "cache", "token", "replica", "session", "router",
                "prefix", "block", "engine", "queue", "spill", "stream", "agent", "tool", "result", "file"};
        while (sb.length() < chars) {
            sb.append(vocab[r.nextInt(vocab.length)]).append(r.nextInt(1000)).append(' ');
        }
        return sb.toString();
    }

    /** The text of a non-streaming Anthropic reply. */
    public static String replyText(String body) {
        try {
            return JSON.readTree(body).path("content").path(0).path("text").asText("");
        } catch (Exception e) {
            throw new IllegalStateException("not an Anthropic message: " + body, e);
        }
    }
}
