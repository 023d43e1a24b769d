package io.lmwarden.router.diagnostics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimFaults;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour 2 of issue 10: side requests under a conversation's session id (Claude Code's title
 * generation, opencode's concurrent side calls: their own system prompt and tools) are shown as
 * such and never counted as prefix breaks; steps are compared in arrival order with the step they continue.
 */
class SideRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MAIN_SYSTEM = "You are an interactive coding agent. Follow the repository rules. ".repeat(40);
    private static final String TITLE_SYSTEM = "Summarize this coding conversation in a title of at most six words.";

    private record Msg(String role, String text) {
    }

    private static String body(String system, boolean withTools, List<Msg> messages, int maxTokens) throws Exception {
        ObjectNode b = JSON.createObjectNode();
        b.put("model", AgentSession.MODEL);
        b.put("max_tokens", maxTokens);
        b.put("system", system);
        if (withTools) {
            ObjectNode tool = b.putArray("tools").addObject();
            tool.put("name", "read_file");
            tool.put("description", "Reads a file of the repository. ".repeat(20));
            tool.putObject("input_schema").put("type", "object");
        }
        ArrayNode m = b.putArray("messages");
        for (Msg msg : messages) {
            m.addObject().put("role", msg.role()).put("content", msg.text());
        }
        return JSON.writeValueAsString(b);
    }

    @Test
    void aConcurrentTitleRequestIsASideRequestAndTheNextTurnNoBreak() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            Map<String, String> h = Map.of("X-Claude-Code-Session-Id", "side-1", "anthropic-version", "2023-06-01");
            String u1 = "fix the failing test in router/src, the stack trace follows " + "frame ".repeat(300);
            List<Msg> turn1 = List.of(new Msg("user", u1));

            // The conversation's first step is in flight (held by the replica before it generates); the title request
            // arrives meanwhile and ends first; then the first step goes on.
            SimFaults replica = SimFaults.of(router.sims(), 0);
            replica.holdNext(1);
            CompletableFuture<Http.Reply> main = CompletableFuture.supplyAsync(() -> post(http, router, uncheckedBody(MAIN_SYSTEM, turn1, 200), h));
            replica.awaitHeld(1);
            Http.Reply title = post(http, router, body(TITLE_SYSTEM, false, List.of(new Msg("user", u1.substring(0, 200))), 4), h);
            assertThat(title.status()).isEqualTo(200);
            replica.release();
            Http.Reply first = main.join();
            assertThat(first.status()).isEqualTo(200);

            String reply = AgentSession.replyText(first.body());
            Http.Reply second = post(http, router, body(MAIN_SYSTEM, true, List.of(new Msg("user", u1), new Msg("assistant", reply),
                    new Msg("user", "now run the tests")), 8), h);
            assertThat(second.status()).isEqualTo(200);

            JsonNode session = JSON.readTree(http.get(router.url() + "/api/sessions/side-1").body());
            assertThat(session.get("prefixBreaks").asInt()).as("breaks in %s", session).isZero();
            assertThat(session.get("sideRequests").asInt()).isEqualTo(1);
            JsonNode steps = session.get("steps");
            assertThat(steps).hasSize(3);
            // Arrival order, to the millisecond: the first step first although it ended last.
            assertThat(steps.get(0).get("decision").asText()).isEqualTo("NEW");
            assertThat(steps.get(0).get("sideRequest").asBoolean()).isFalse();
            assertThat(steps.get(0).get("epochMillis").asLong()).isLessThan(steps.get(1).get("epochMillis").asLong());
            assertThat(steps.get(1).get("sideRequest").asBoolean()).isTrue();
            assertThat(steps.get(1).get("prefixBreak").isNull()).isTrue();
            JsonNode next = steps.get(2);
            assertThat(next.get("sideRequest").asBoolean()).isFalse();
            assertThat(next.get("prefixBreak").isNull()).isTrue();
            // It continues the first step: everything of that prompt is shared (whole 64-character blocks).
            assertThat(next.get("sharedPrefixTokens").asInt()).isGreaterThan(steps.get(0).get("promptTokens").asInt() * 8 / 10);
            // Counters are born at 0 for every segment (so rate() sees their first event): none may have moved.
            assertThat(http.get(router.url() + "/metrics").body())
                    .contains("lmw_prefix_breaks_total{segment=\"message\"} 0.0")
                    .contains("lmw_prefix_breaks_total{segment=\"system\"} 0.0")
                    .contains("lmw_prefix_breaks_total{segment=\"tools\"} 0.0");
        }
    }

    /**
     * opencode sends its title request before the conversation's first turn: the title is the session's first step,
     * the turn that follows (larger, its own system prompt and tools) starts the conversation, neither side request nor
     * break, and its next turn grows from it. Three sessions at once.
     */
    @Test
    void aTitleRequestThatArrivesFirstLeavesTheConversationItsOwnSteps() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            List<CompletableFuture<Void>> sessions = new java.util.ArrayList<>();
            for (int s = 0; s < 3; s++) {
                String id = "title-first-" + s;
                sessions.add(CompletableFuture.runAsync(() -> {
                    Map<String, String> h = Map.of("X-Session-Id", id, "anthropic-version", "2023-06-01");
                    String u1 = id + ": fix the failing test in router/src " + "frame ".repeat(200);
                    Http.Reply title = post(http, router, uncheckedBody(TITLE_SYSTEM, false, List.of(new Msg("user", u1.substring(0, 120))), 4), h);
                    Http.Reply first = post(http, router, uncheckedBody(MAIN_SYSTEM, true, List.of(new Msg("user", u1)), 16), h);
                    Http.Reply second = post(http, router, uncheckedBody(MAIN_SYSTEM, true, List.of(new Msg("user", u1),
                            new Msg("assistant", AgentSession.replyText(first.body())), new Msg("user", "now run the tests")), 8), h);
                    assertThat(List.of(title.status(), first.status(), second.status())).containsOnly(200);
                }));
            }
            CompletableFuture.allOf(sessions.toArray(new CompletableFuture[0])).get(60, java.util.concurrent.TimeUnit.SECONDS);
            for (int s = 0; s < 3; s++) {
                JsonNode session = JSON.readTree(http.get(router.url() + "/api/sessions/title-first-" + s).body());
                JsonNode steps = session.get("steps");
                assertThat(steps).hasSize(3);
                assertThat(session.get("prefixBreaks").asInt()).as("breaks in %s", session).isZero();
                assertThat(session.get("sideRequests").asInt()).as("the conversation's own turns are no side requests: %s", session).isZero();
                assertThat(steps.get(2).get("sharedPrefixTokens").asInt()).isGreaterThan(steps.get(1).get("promptTokens").asInt() * 8 / 10);
            }
        }
    }

    private static String uncheckedBody(String system, List<Msg> messages, int maxTokens) {
        return uncheckedBody(system, true, messages, maxTokens);
    }

    private static String uncheckedBody(String system, boolean withTools, List<Msg> messages, int maxTokens) {
        try {
            return body(system, withTools, messages, maxTokens);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Http.Reply post(Http http, RouterUnderTest router, String body, Map<String, String> h) {
        return http.post(router.url() + "/v1/messages", body, h);
    }
}
