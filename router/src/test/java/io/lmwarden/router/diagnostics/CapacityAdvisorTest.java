package io.lmwarden.router.diagnostics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour 4 of issue 10: the capacity advisor counts live working sets: the distinct blocks of
 * sessions active within a minute of workload time (3 s of wall clock at time scale 20), a shared
 * system prompt once, and reading a session changes nothing.
 */
class CapacityAdvisorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** 8,000 characters: about 2,000 tokens that every session shares. */
    private static final String SHARED_SYSTEM = "You are a careful coding agent working in a large repository. ".repeat(125);

    private static String body(String user) throws Exception {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":2,\"system\":" + JSON.writeValueAsString(SHARED_SYSTEM)
                + ",\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(user) + "}]}";
    }

    private static JsonNode capacity(Http http, RouterUnderTest router) throws Exception {
        return JSON.readTree(http.get(router.url() + "/api/replicas").body()).get("capacity");
    }

    @Test
    void countsDistinctContextOfSessionsActiveInTheWindow() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c.withTimeScale(20))) {
            Http http = new Http();
            assertThat(http.post(router.url() + "/v1/messages", body("an early session that then went quiet"),
                    Map.of("X-Session-Id", "cap-idle")).status()).isEqualTo(200);
            RouterUnderTest.sleep(3_500);

            for (int i = 0; i < 4; i++) {
                String user = "session " + i + " works on its own file " + ("line " + i + " ").repeat(60);
                assertThat(http.post(router.url() + "/v1/messages", body(user), Map.of("X-Session-Id", "cap-" + i)).status()).isEqualTo(200);
            }
            // Reading the idle session must not change what counts as active.
            assertThat(http.get(router.url() + "/api/sessions/cap-idle").status()).isEqualTo(200);

            JsonNode c = capacity(http, router);
            assertThat(c.get("activeSessions").asInt()).as("capacity %s", c).isEqualTo(4);
            // One shared system prompt (~2,000 tokens) plus four turns of ~100 tokens; summing whole prompts gives ~8,500.
            assertThat(c.get("demandTokens").asLong()).as("capacity %s", c).isBetween(2_000L, 3_000L);
            assertThat(c.get("message").asText()).contains("4 active sessions");

            RouterUnderTest.sleep(3_500);
            JsonNode later = capacity(http, router);
            assertThat(later.get("activeSessions").asInt()).as("a minute of workload time later %s", later).isZero();
            assertThat(later.get("demandTokens").asLong()).isZero();
        }
    }
}
