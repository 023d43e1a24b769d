package io.lmwarden.router.proxy;

import io.lmwarden.router.config.UpstreamSettings;
import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Faults injected into simulated replicas, and bad input from clients, against a live router. */
class FailureHandlingTest {

    private static RouterUnderTest router;
    private static final Http HTTP = new Http();

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(3, SimProfile.named("tiny"), 5),
                c -> c.with(PlacementSettings.POLICY, "affinity").with(UpstreamSettings.STREAM_IDLE_TIMEOUT, Duration.ofMillis(1500)).with(ServerSettings.BODY_LIMIT, (long) (256 * 1024)));
    }

    @AfterAll
    static void stop() {
        router.close();
    }

    private static void fault(int replica, String json) {
        Http.Reply r = HTTP.post(router.sims().url(replica) + "/sim/faults", json, Map.of());
        assertThat(r.status()).as("arming fault %s", json).isEqualTo(200);
    }

    private static String chat(boolean stream) {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":" + stream
                + ",\"max_tokens\":12,\"messages\":[{\"role\":\"user\",\"content\":\"hello from the failure test\"}]}";
    }

    @Test
    void a503BeforeAnyByteIsRetriedOnceOnAnotherReplica() {
        fault(0, "{\"failNext\":1,\"status\":503}");
        // Pinning by rank is CLIENT_PINNED and not retried; pin the session by affinity instead.
        Http.Reply first = HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of("X-Session-Id", "retry-1"));
        assertThat(first.status()).isEqualTo(200);
        if (!first.replica().equals("sim-0")) {
            // The session landed elsewhere: arm that replica instead and go again.
            HTTP.post(router.sims().url(0) + "/sim/faults", "{\"failNext\":0}", Map.of());
            fault(Integer.parseInt(first.replica().substring(4)), "{\"failNext\":1,\"status\":503}");
        } else {
            fault(0, "{\"failNext\":1,\"status\":503}");
        }
        Http.Reply retried = HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of("X-Session-Id", "retry-1"));
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.decision()).isEqualTo("FALLBACK");
        assertThat(retried.replica()).isNotEqualTo(first.replica());
        assertThat(HTTP.get(router.url() + "/metrics").body()).contains("lmw_retries_total{failed_replica=\"" + first.replica() + "\"}");
    }

    @Test
    void aReplicaDroppingMidStreamEndsTheOpenAiStreamWithAnErrorChunk() {
        fault(1, "{\"dropNext\":1,\"afterChunks\":2}");
        List<String> lines = HTTP.streamLines(router.url() + "/v1/chat/completions", chat(true), Map.of("X-LMW-Replica", "sim-1"));
        assertThat(lines).anyMatch(l -> l.startsWith("data: {\"error\""));
        assertThat(lines).noneMatch(l -> l.equals("data: [DONE]"));
        assertThat(String.join("\n", lines)).contains("dropped the response mid-stream");
    }

    @Test
    void aReplicaDroppingMidStreamEndsTheAnthropicStreamWithAnErrorEvent() {
        fault(1, "{\"dropNext\":1,\"afterChunks\":2}");
        String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"max_tokens\":12,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        List<String> lines = HTTP.streamLines(router.url() + "/v1/messages?beta=true", body, Map.of("X-LMW-Replica", "sim-1"));
        assertThat(lines).contains("event: error");
        assertThat(lines).noneMatch(l -> l.equals("event: message_stop"));
        assertThat(lines).anyMatch(l -> l.startsWith("data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\""));
    }

    @Test
    void aReplicaSilentPastTheIdleTimeoutBeforeAnyByteIsLeftForAnother() {
        Map<String, String> session = Map.of("X-Session-Id", "stall-once");
        String home = HTTP.post(router.url() + "/v1/chat/completions", chat(false), session).replica();
        fault(Integer.parseInt(home.substring(4)), "{\"stallNext\":1,\"stallMs\":4000}");
        Http.Reply r = HTTP.post(router.url() + "/v1/chat/completions", chat(false), session);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.replica()).isNotEqualTo(home);
        assertThat(r.header("content-type")).contains("json");
    }

    @Test
    void aRequestStalledOnEveryAttemptEndsInA504() {
        for (int i = 0; i < 3; i++) {
            fault(i, "{\"stallNext\":1,\"stallMs\":4000}");
        }
        Http.Reply r = HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of("X-Session-Id", "stall-all"));
        assertThat(r.status()).isEqualTo(504);
        assertThat(r.body()).contains("\"type\":\"TimeoutError\"").contains("stream idle timeout");
        for (int i = 0; i < 3; i++) {
            HTTP.delete(router.sims().url(i) + "/sim/faults");
        }
    }

    @Test
    void malformedJsonGetsA400InTheApiShapeAndTheRouterKeepsServing() {
        Http.Reply bad = HTTP.post(router.url() + "/v1/messages", "{\"model\": \"x\", \"messages\": [", Map.of());
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).startsWith("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"")
                .contains("not valid JSON").contains("line 1");
        Http.Reply badOpenAi = HTTP.post(router.url() + "/v1/chat/completions", "[1,2]", Map.of());
        assertThat(badOpenAi.status()).isEqualTo(400);
        assertThat(badOpenAi.body()).contains("\"error\":{\"message\":\"request body must be a JSON object, got an array\"");

        Http.Reply ok = HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of());
        assertThat(ok.status()).isEqualTo(200);
    }

    @Test
    void aBodyOverTheLimitGetsA413() {
        String huge = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(300 * 1024) + "\"}]}";
        Http.Reply r = HTTP.post(router.url() + "/v1/messages", huge, Map.of());
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body()).contains("\"type\":\"request_too_large\"").contains("bodyLimit");
        assertThat(HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of()).status()).isEqualTo(200);
    }

    @Test
    void pinningToAnUnknownReplicaIsA400ThatNamesTheKnownOnes() {
        Http.Reply r = HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of("X-LMW-Replica", "nope"));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains("sim-0, sim-1, sim-2");
        Http.Reply rank = HTTP.post(router.url() + "/v1/chat/completions", chat(false), Map.of("X-data-parallel-rank", "2"));
        assertThat(rank.status()).isEqualTo(200);
        assertThat(rank.replica()).isEqualTo("sim-2");
        assertThat(rank.decision()).isEqualTo("CLIENT_PINNED");
    }

    @Test
    void aReplicaSilentOnAPassThroughRequestGetsTheClientA504NamingIt() {
        for (int i = 0; i < 3; i++) {
            fault(i, "{\"modelsStallMs\":60000}");
        }
        try {
            Http.Reply r = HTTP.get(router.url() + "/v1/models");
            assertThat(r.status()).isEqualTo(504);
            assertThat(r.body()).contains("\"error\"").containsPattern("replica sim-[0-2] did not answer within streamIdleTimeout");
        } finally {
            for (int i = 0; i < 3; i++) {
                fault(i, "{\"modelsStallMs\":0}");
            }
        }
        assertThat(HTTP.get(router.url() + "/v1/models").status()).as("the router keeps serving").isEqualTo(200);
    }

    @Test
    void modelsAreServedFromAReadyReplica() {
        Http.Reply r = HTTP.get(router.url() + "/v1/models");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains(AgentSession.MODEL).contains("max_model_len");
    }
}
