package io.lmwarden.router.diagnostics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.RouterTuning;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour 4 of issue 10: the capacity advisor counts live working sets: the distinct blocks of
 * sessions active within the window of workload time, a shared system prompt once, and reading a
 * session changes nothing. The window is shortened to 40 s of workload time (2 s of wall clock at
 * time scale 20) instead of the minute it is in production.
 */
class CapacityAdvisorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TIME_SCALE = 20;
    private static final Duration WINDOW_WORKLOAD = Duration.ofSeconds(40);
    private static final long WINDOW_WALL_NANOS = (long) (WINDOW_WORKLOAD.toNanos() / TIME_SCALE);
    /** 8,000 characters: about 2,000 tokens that every session shares. */
    private static final String SHARED_SYSTEM = "You are a careful coding agent working in a large repository. ".repeat(125);

    private static String body(String user) throws Exception {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":2,\"system\":" + JSON.writeValueAsString(SHARED_SYSTEM)
                + ",\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(user) + "}]}";
    }

    private static JsonNode capacity(Http http, RouterUnderTest router) throws Exception {
        return JSON.readTree(http.get(router.url() + "/api/replicas").body()).get("capacity");
    }

    /** Waits until no session counts as active any more: the window has passed over all of them. */
    private static JsonNode awaitNoneActive(Http http, RouterUnderTest router) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode c = capacity(http, router);
        while (c.get("activeSessions").asInt() > 0 && System.nanoTime() < deadline) {
            RouterUnderTest.sleep(100);
            c = capacity(http, router);
        }
        return c;
    }

    @Test
    void countsDistinctContextOfSessionsActiveInTheWindow() throws Exception {
        RouterTuning tuning = RouterTuning.DEFAULTS.withActiveWindow(WINDOW_WORKLOAD);
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), TIME_SCALE),
                c -> c.withTimeScale(TIME_SCALE), tuning)) {
            Http http = new Http();
            assertThat(http.post(router.url() + "/v1/messages", body("an early session that then went quiet"),
                    Map.of("X-Session-Id", "cap-idle")).status()).isEqualTo(200);
            assertThat(awaitNoneActive(http, router).get("activeSessions").asInt()).as("the quiet session leaves the window").isZero();

            // Four sessions inside one window. A machine too loaded to send them within it gets more rounds, each
            // after the window has passed over the one before; never a verdict from a round that took too long.
            JsonNode c = null;
            for (int round = 0; c == null; round++) {
                assertThat(round).as("rounds of 4 requests that took longer than the %d ms window", WINDOW_WALL_NANOS / 1_000_000)
                        .isLessThan(5);
                long started = System.nanoTime();
                for (int i = 0; i < 4; i++) {
                    String user = "session " + i + " works on its own file " + ("line " + i + " ").repeat(60);
                    assertThat(http.post(router.url() + "/v1/messages", body(user), Map.of("X-Session-Id", "cap-" + round + "-" + i))
                            .status()).isEqualTo(200);
                }
                // Reading the quiet session must not make it active again.
                assertThat(http.get(router.url() + "/api/sessions/cap-idle").status()).isEqualTo(200);
                JsonNode read = capacity(http, router);
                if (System.nanoTime() - started < WINDOW_WALL_NANOS) {
                    c = read;
                } else {
                    awaitNoneActive(http, router);
                }
            }
            assertThat(c.get("activeSessions").asInt()).as("capacity %s", c).isEqualTo(4);
            // One shared system prompt (~2,000 tokens) plus four turns of ~100 tokens; summing whole prompts gives ~8,500.
            assertThat(c.get("demandTokens").asLong()).as("capacity %s", c).isBetween(2_000L, 3_000L);
            assertThat(c.get("message").asText()).contains("4 active sessions");

            JsonNode later = awaitNoneActive(http, router);
            assertThat(later.get("activeSessions").asInt()).as("a window of workload time later %s", later).isZero();
            assertThat(later.get("demandTokens").asLong()).isZero();
        }
    }
}
