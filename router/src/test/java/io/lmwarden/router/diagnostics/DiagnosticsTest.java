package io.lmwarden.router.diagnostics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The three prefix-cache questions, answered per session and in aggregate, against simulated replicas. */
class DiagnosticsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FIXED = "You are a careful coding agent. ".repeat(32);

    private static String body(String system, String user, int maxTokens) {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":" + maxTokens + ",\"system\":" + quote(system)
                + ",\"messages\":[{\"role\":\"user\",\"content\":" + quote(user) + "}]}";
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aDateInsertedIntoTheSystemPromptIsAPrefixBreakAtItsPosition() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            Map<String, String> h = Map.of("X-Claude-Code-Session-Id", "break-1");
            String user = "fix the failing test in router/src " + "detail ".repeat(100);
            assertThat(http.post(router.url() + "/v1/messages", body(FIXED + "Follow the rules.", user, 8), h).status()).isEqualTo(200);
            // Step 2 carries today's date inside the system prompt, after the fixed part.
            Http.Reply second = http.post(router.url() + "/v1/messages",
                    body(FIXED + "Today is 2026-11-30. Follow the rules.", user, 8), h);
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.decision()).isEqualTo("STICKY");

            JsonNode session = JSON.readTree(http.get(router.url() + "/api/sessions/break-1").body());
            assertThat(session.get("prefixBreaks").asInt()).isEqualTo(1);
            JsonNode first = session.get("steps").get(0);
            assertThat(first.get("prefixBreak").isNull()).isTrue();
            JsonNode br = session.get("steps").get(1).get("prefixBreak");
            // Canonical text: "<|system|>\n" + FIXED + ...; the change is at FIXED's end, in 64-character blocks.
            int changeAt = "<|system|>\n".length() + FIXED.length();
            int expectedChar = changeAt / 64 * 64;
            assertThat(br.get("atChar").asInt()).isEqualTo(expectedChar);
            assertThat(br.get("atToken").asInt()).isEqualTo(expectedChar / 4);
            assertThat(br.get("segment").asText()).isEqualTo("system");
            assertThat(session.get("steps").get(1).get("sharedPrefixTokens").asInt()).isEqualTo(expectedChar / 4);
            // The engine agrees: it reused only the shared part.
            long cached = session.get("steps").get(1).get("cachedTokens").asLong();
            assertThat(cached).isBetween((long) expectedChar / 4 - 32, (long) expectedChar / 4 + 16);

            String metrics = http.get(router.url() + "/metrics").body();
            assertThat(metrics).contains("lmw_prefix_breaks_total{segment=\"system\"} 1.0");
            assertThat(JSON.readTree(http.get(router.url() + "/api/stats").body()).at("/diagnostics/prefixBreaks").asInt()).isEqualTo(1);
        }
    }

    @Test
    void aPrefixEvictedBehindTheRoutersBackIsFlaggedAsACacheMiss() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 20), c -> c)) {
            Http http = new Http();
            Map<String, String> h = Map.of("X-Session-Id", "miss-1");
            String user = "session text ".repeat(150);
            http.post(router.url() + "/v1/messages", body("system", user, 4), h);
            Http.Reply hit = http.post(router.url() + "/v1/messages", body("system", user + " more", 4), h);
            assertThat(hit.status()).isEqualTo(200);
            // Another client fills the engine's cache directly, past the router.
            for (int i = 0; i < 10; i++) {
                assertThat(http.post(router.sims().url(0) + "/v1/messages", body("other " + i, ("filler " + i + " ").repeat(400), 2),
                        Map.of()).status()).isEqualTo(200);
            }
            Http.Reply missed = http.post(router.url() + "/v1/messages", body("system", user + " more and more", 4), h);
            assertThat(missed.status()).isEqualTo(200);

            JsonNode steps = JSON.readTree(http.get(router.url() + "/api/sessions/miss-1").body()).get("steps");
            assertThat(steps.get(1).get("cacheMiss").asBoolean()).isFalse();
            assertThat(steps.get(1).get("expectedCachedTokens").asInt()).isGreaterThan(256);
            JsonNode last = steps.get(2);
            assertThat(last.get("expectedCachedTokens").asInt()).isGreaterThan(256);
            assertThat(last.get("cachedTokens").asLong()).isLessThan(last.get("expectedCachedTokens").asLong() / 2);
            assertThat(last.get("cacheMiss").asBoolean()).isTrue();
            assertThat(http.get(router.url() + "/metrics").body()).contains("lmw_cache_misses_total{replica=\"sim-0\"} 1.0");
        }
    }

    @Test
    void aLongQueueOnTheHomeReplicaIsFlaggedAsEatingTheGain() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 2), c -> c)) {
            Http http = new Http();
            Map<String, String> h = Map.of("X-Session-Id", "queue-1");
            String user = "queue text ".repeat(120);
            http.post(router.url() + "/v1/messages", body("system", user, 2), h);
            // Fill all four engine slots and queue more behind them with long generations.
            List<CompletableFuture<Http.Reply>> load = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String b = body("load " + i, "x", 300);
                load.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", b, Map.of())));
            }
            RouterUnderTest.sleep(200);
            Http.Reply queued = http.post(router.url() + "/v1/messages", body("system", user + " next", 2), h);
            assertThat(queued.status()).isEqualTo(200);
            load.forEach(CompletableFuture::join);

            JsonNode step = JSON.readTree(http.get(router.url() + "/api/sessions/queue-1").body()).get("steps").get(1);
            JsonNode split = step.get("ttfbSplit");
            assertThat(split.get("queueMs").asDouble()).isGreaterThan(split.get("savedMs").asDouble());
            assertThat(step.get("queueAteGain").asBoolean()).isTrue();
            assertThat(split.get("routerMs").asDouble() + split.get("queueMs").asDouble() + split.get("prefillMs").asDouble())
                    .isCloseTo(step.get("ttfbMillis").asDouble(), org.assertj.core.data.Offset.offset(1.0));
            assertThat(http.get(router.url() + "/metrics").body()).contains("lmw_queue_ate_gain_total{replica=\"sim-0\"}");
        }
    }

    @Test
    void statsSplitPromptTokensIntoCachedAndComputedAndAdviseOnCapacity() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.named("tiny"), 20), c -> c)) {
            Http http = new Http();
            String user = "stats text ".repeat(100);
            for (int i = 0; i < 3; i++) {
                assertThat(http.post(router.url() + "/v1/messages", body("system", user, 4), Map.of("X-Session-Id", "stats-1")).status())
                        .isEqualTo(200);
            }
            JsonNode stats = JSON.readTree(http.get(router.url() + "/api/stats").body());
            JsonNode hour = stats.get("lastHour");
            assertThat(hour.get("cachedTokens").asLong()).isPositive();
            assertThat(hour.get("computedTokens").asLong()).isPositive();
            assertThat(hour.get("promptTokens").asLong()).isEqualTo(hour.get("cachedTokens").asLong() + hour.get("computedTokens").asLong());
            assertThat(hour.get("outputTokens").asLong()).isEqualTo(12);
            assertThat(hour.get("cachedShare").asDouble()).isBetween(0.5, 0.7);
            assertThat(stats.get("recent")).hasSize(120);
            assertThat(stats.get("series")).hasSizeGreaterThanOrEqualTo(1);

            JsonNode capacity = JSON.readTree(http.get(router.url() + "/api/replicas").body()).get("capacity");
            assertThat(capacity.get("activeSessions").asInt()).isEqualTo(1);
            assertThat(capacity.get("poolKvTokens").asLong()).isEqualTo(4096);
            assertThat(capacity.get("overCapacity").asBoolean()).isFalse();
            // Enough sessions of this size no longer fit the tiny pool: the advisor says so.
            for (int i = 0; i < 12; i++) {
                http.post(router.url() + "/v1/messages", body("system", "session " + i + " " + user + user, 2), Map.of("X-Session-Id", "cap-" + i));
            }
            capacity = JSON.readTree(http.get(router.url() + "/api/replicas").body()).get("capacity");
            assertThat(capacity.get("overCapacity").asBoolean()).isTrue();
            assertThat(capacity.get("message").asText()).contains("13 active sessions").contains("4,096 tokens of KV cache");
        }
    }
}
