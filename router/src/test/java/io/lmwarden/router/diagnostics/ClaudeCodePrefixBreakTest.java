package io.lmwarden.router.diagnostics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's break nobody reported, in the shape Claude Code 2.1.197 sends it (captured from a real run through a
 * loopback recorder): its first {@code claude -p} invocation says in the system prompt "You are powered by the model
 * named Opus 4.8 (1M context). The exact model ID is claude-opus-4-8[1m]." and every {@code --continue} after it
 * "… Opus 4.8. The exact model ID is claude-opus-4-8.", at character 4,527 of the system prompt (the Bash tool's
 * commit-message text differs the same way), so everything after it is prefilled again. The break is early, so it
 * is the costliest kind; it must be reported with its segment, position and the changed text. A title-generation
 * request under the same session id (its own system prompt, no tools, the first turn quoted inside {@code <session>})
 * stays a side request. Several sessions at once, real HTTP, simulated replicas serving Claude Code's names.
 */
class ClaudeCodePrefixBreakTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OPUS = "claude-opus-4-8";
    private static final String HAIKU = "claude-haiku-4-5-20251001";
    private static final String IDENTITY = "You are a Claude agent, built on Anthropic's Claude Agent SDK.";
    private static final String ENV_SHARED = " - You are powered by the model named Opus 4.8";
    /** Where the change is, counted in the system prompt the router sees (identity block, newline, main block). */
    private static final int CHANGE_AT = 4_527;
    private static final String TITLE_PROMPT = "Generate a concise, sentence-case title (3-7 words) that captures the main topic or "
            + "goal of this coding session. The title should be clear enough that the user recognizes the session in a list. "
            + "Use sentence case: capitalize only the first word and proper nouns.\nReturn JSON with a single \"title\" field.";
    private static final String TURN_1 = "turn 1: list the files here and suggest a test";

    /**
     * The main system block: filler up to the environment section, the session's working directory (every session its
     * own project, so that sessions share the engine's cache only up to there, as real ones do), the model line, more
     * rules after it.
     */
    private static String mainSystem(String session, boolean oneMillionContext) {
        String cwd = " - Primary working directory: /work/" + session + "\n";
        int headChars = CHANGE_AT - (IDENTITY.length() + 1) - cwd.length() - ENV_SHARED.length();
        StringBuilder head = new StringBuilder("\nYou are an interactive agent that helps users with software engineering tasks.\n");
        int rule = 1;
        while (head.length() < headChars) {
            head.append("Rule ").append(rule++).append(": keep changes small, read before you write, run the tests. ");
        }
        head.setLength(headChars - 1);
        head.append('\n');
        String model = oneMillionContext
                ? " (1M context). The exact model ID is claude-opus-4-8[1m].\n"
                : ". The exact model ID is claude-opus-4-8.\n";
        return head + cwd + ENV_SHARED + model + " - Assistant knowledge cutoff is January 2026.\n"
                + "Tone and style: be concise; prefer the repository's conventions. ".repeat(20);
    }

    private static ArrayNode tools(boolean oneMillionContext) {
        ArrayNode tools = JSON.createArrayNode();
        // Claude Code 2.1.197's 24 tools (its real ones are ~60,000 characters; a third of that here, so that the six
        // sessions' prompts fit the two simulated replicas' KV caches and nothing is evicted).
        for (String name : List.of("Agent", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree", "ExitWorktree",
                "NotebookEdit", "Read", "ReportFindings", "ScheduleWakeup", "SendMessage", "Skill", "TaskCreate", "TaskGet", "TaskList",
                "TaskOutput", "TaskStop", "TaskUpdate", "WebFetch", "WebSearch", "Workflow", "Write")) {
            ObjectNode t = tools.addObject();
            t.put("name", name);
            String description = "The " + name + " tool. Use it when the task needs it; never guess its output. ".repeat(14);
            if (name.equals("Bash")) {
                description += "- End git commit messages with:\nCo-Authored-By: Claude Opus 4.8"
                        + (oneMillionContext ? " (1M context)" : "") + " <noreply@anthropic.com>\n";
            }
            t.put("description", description);
            t.putObject("input_schema").put("type", "object");
        }
        return tools;
    }

    private static ObjectNode firstTurn() {
        ObjectNode m = JSON.createObjectNode().put("role", "user");
        ArrayNode content = m.putArray("content");
        content.addObject().put("type", "text").put("text", "<system-reminder>\nAs you answer the user's questions, you can use the "
                + "following context:\n# currentDate\nToday's date is 2026-12-02.\n</system-reminder>\n\n");
        content.addObject().put("type", "text").put("text", TURN_1);
        return m;
    }

    /** A step of the conversation: Claude Code's system blocks (billing header first), its tools, the messages so far. */
    private static String step(String session, boolean oneMillionContext, List<ObjectNode> messages, int version) {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", OPUS);
        b.put("max_tokens", 24);
        b.put("stream", true);
        ArrayNode system = b.putArray("system");
        system.addObject().put("type", "text").put("text", "x-anthropic-billing-header: cc_version=2.1.197." + version + "; cc_entrypoint=sdk-cli;");
        system.addObject().put("type", "text").put("text", IDENTITY);
        system.addObject().put("type", "text").put("text", mainSystem(session, oneMillionContext));
        b.set("tools", tools(oneMillionContext));
        b.putObject("metadata").put("user_id", "{\"device_id\":\"d1\",\"account_uuid\":\"\",\"session_id\":\"" + session + "\"}");
        ArrayNode m = b.putArray("messages");
        messages.forEach(m::add);
        return b.toString();
    }

    /** Claude Code's title generation: the small model, its own system prompt, no tools, the first turn quoted. */
    private static String titleRequest() {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", HAIKU);
        b.put("max_tokens", 24);
        ArrayNode system = b.putArray("system");
        system.addObject().put("type", "text").put("text", "x-anthropic-billing-header: cc_version=2.1.197.9; cc_entrypoint=sdk-cli;");
        system.addObject().put("type", "text").put("text", IDENTITY);
        system.addObject().put("type", "text").put("text", TITLE_PROMPT);
        b.putArray("messages").addObject().put("role", "user").put("content", "<session>\n" + TURN_1
                + "\n</session>\nWrite the title in the language the user wrote in, regardless of the language of the examples above.");
        return b.toString();
    }

    private static Map<String, String> headers(String session) {
        return Map.of("X-Claude-Code-Session-Id", session, "anthropic-version", "2023-06-01", "anthropic-beta", "claude-code-20250219");
    }

    /** Turn 1, then turn 2 and the title request at once, then turn 3; {@code stable}: the model line never changes. */
    private static List<Http.Reply> conversation(Http http, RouterUnderTest router, String session, boolean stable) throws Exception {
        List<ObjectNode> messages = new ArrayList<>(List.of(firstTurn()));
        Http.Reply t1 = http.post(router.url() + "/v1/messages?beta=true", step(session, !stable, messages, 1), headers(session));
        messages.add(JSON.createObjectNode().put("role", "assistant").put("content", streamedText(t1)));
        messages.add(JSON.createObjectNode().put("role", "user").put("content", "turn 2: now write the test"));
        CompletableFuture<Http.Reply> title = CompletableFuture.supplyAsync(
                () -> http.post(router.url() + "/v1/messages?beta=true", titleRequest(), headers(session)));
        Http.Reply t2 = http.post(router.url() + "/v1/messages?beta=true", step(session, false, messages, 2), headers(session));
        messages.add(JSON.createObjectNode().put("role", "assistant").put("content", streamedText(t2)));
        messages.add(JSON.createObjectNode().put("role", "user").put("content", "turn 3: run it"));
        Http.Reply t3 = http.post(router.url() + "/v1/messages?beta=true", step(session, false, messages, 3), headers(session));
        return List.of(t1, t2, t3, title.get(60, TimeUnit.SECONDS));
    }

    /** The text of an Anthropic SSE stream's deltas. */
    private static String streamedText(Http.Reply r) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String line : r.body().split("\n")) {
            if (line.startsWith("data:")) {
                JsonNode event = JSON.readTree(line.substring(5).trim());
                sb.append(event.path("delta").path("text").asText(""));
            }
        }
        return sb.toString();
    }

    @Test
    void theModelLineThatChangesAfterTheFirstTurnIsAnEarlyBreakAndTheTitleRequestASideRequest() throws Exception {
        List<String> names = List.of(AgentSession.MODEL, OPUS, HAIKU);
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(List.of(1, 1), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, names), c -> c)) {
            Http http = new Http();
            awaitNames(http, router, names);
            // Four sessions where the first turn says "(1M context)" and two where the model is named the same way every time.
            List<String> breaking = List.of("cc-1m-1", "cc-1m-2", "cc-1m-3", "cc-1m-4");
            List<String> stable = List.of("cc-stable-1", "cc-stable-2");
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Future<List<Http.Reply>>> runs = new ArrayList<>();
            for (String s : breaking) {
                runs.add(pool.submit(() -> conversation(http, router, s, false)));
            }
            for (String s : stable) {
                runs.add(pool.submit(() -> conversation(http, router, s, true)));
            }
            for (Future<List<Http.Reply>> run : runs) {
                assertThat(run.get(120, TimeUnit.SECONDS)).extracting(Http.Reply::status).containsOnly(200);
            }
            pool.shutdown();

            for (String s : breaking) {
                JsonNode session = JSON.readTree(http.get(router.url() + "/api/sessions/" + s).body());
                assertThat(session.path("prefixBreaks").asInt()).as("breaks of %s: %s", s, session).isEqualTo(1);
                assertThat(session.path("sideRequests").asInt()).as("side requests of %s", s).isEqualTo(1);
                JsonNode steps = session.path("steps");
                assertThat(steps).hasSize(4);
                JsonNode second = null;
                for (JsonNode st : steps) {
                    if (st.path("model").asText().equals(HAIKU)) {
                        assertThat(st.path("sideRequest").asBoolean()).as("the title request").isTrue();
                        assertThat(st.path("prefixBreak").isNull()).isTrue();
                    } else if (!st.path("prefixBreak").isNull()) {
                        second = st;
                    }
                }
                assertThat(second).as("the step with the break").isNotNull();
                JsonNode br = second.path("prefixBreak");
                assertThat(br.path("segment").asText()).isEqualTo("system");
                // Block-aligned (64 characters): the block that holds character 4,527 of the system prompt.
                assertThat(br.path("charInSegment").asInt()).isBetween(CHANGE_AT - 63, CHANGE_AT);
                assertThat(br.path("text").asText()).hasSize(64).contains("Opus 4.8.");
                assertThat(br.path("atToken").asInt()).isEqualTo(br.path("atChar").asInt() / 4);
                assertThat(second.path("sharedPrefixTokens").asInt()).isEqualTo(br.path("atToken").asInt());
                // The engine agrees: of a prompt of thousands of tokens, only the part before the break came from cache.
                assertThat(second.path("cachedTokens").asLong()).isBetween(br.path("atToken").asLong() - 48, br.path("atToken").asLong() + 16);
                assertThat(second.path("promptTokens").asLong()).isGreaterThan(3 * second.path("cachedTokens").asLong());
                assertThat(second.path("decision").asText()).as("the break does not move the session").isEqualTo("STICKY");
            }
            for (String s : stable) {
                JsonNode session = JSON.readTree(http.get(router.url() + "/api/sessions/" + s).body());
                assertThat(session.path("prefixBreaks").asInt()).as("breaks of %s: %s", s, session).isZero();
                assertThat(session.path("sideRequests").asInt()).isEqualTo(1);
                JsonNode steps = session.path("steps");
                JsonNode last = steps.get(steps.size() - 1).path("model").asText().equals(HAIKU) ? steps.get(steps.size() - 2)
                        : steps.get(steps.size() - 1);
                assertThat(last.path("cachedTokens").asLong()).as("turn 3 of %s reads its whole history from cache", s)
                        .isGreaterThan(last.path("promptTokens").asLong() * 9 / 10);
            }
            String metrics = http.get(router.url() + "/metrics").body();
            assertThat(metrics).contains("lmw_prefix_breaks_total{segment=\"system\"} 4.0")
                    .contains("lmw_prefix_breaks_total{segment=\"message\"} 0.0")
                    .contains("lmw_prefix_breaks_total{segment=\"tools\"} 0.0");
            assertThat(JSON.readTree(http.get(router.url() + "/api/stats").body()).at("/diagnostics/prefixBreaks").asInt()).isEqualTo(4);
        }
    }

    private static void awaitNames(Http http, RouterUnderTest router, List<String> names) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonNode rows = JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas");
            boolean all = rows.size() > 0;
            for (JsonNode r : rows) {
                List<String> served = new ArrayList<>();
                r.path("servedModels").forEach(n -> served.add(n.asText()));
                all &= served.containsAll(names);
            }
            if (all) {
                return;
            }
            RouterUnderTest.sleep(50);
        }
        throw new AssertionError("the replicas' names were not read within 20 s");
    }
}
