package io.lmwarden.router.placement;

import io.lmwarden.router.config.PlacementSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour 1 of issue 10: the router believes a replica holds a prompt only once its engine accepted
 * the request. Requests the engine refused, token counting and unknown models leave no trace.
 */
class WhatReplicasHoldTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Each test's own prompt: what one test leaves cached must not look like another's expectation. */
    private static String user(String tag) {
        return tag + ": explain the failing test in router/src " + "context ".repeat(400);
    }
    private static RouterUnderTest router;
    private static final Http HTTP = new Http();

    @BeforeAll
    static void start() {
        router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 20), c -> c.with(PlacementSettings.POLICY, "cost"));
    }

    @AfterAll
    static void stop() {
        router.close();
    }

    private static String body(String model, String user, int maxTokens) throws Exception {
        return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens + ",\"system\":\"You are a coding agent.\","
                + "\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(user) + "}]}";
    }

    private static JsonNode lastStep(String session) throws Exception {
        JsonNode steps = JSON.readTree(HTTP.get(router.url() + "/api/sessions/" + session).body()).get("steps");
        return steps.get(steps.size() - 1);
    }

    private static int cacheMisses() throws Exception {
        return JSON.readTree(HTTP.get(router.url() + "/api/stats").body()).at("/diagnostics/cacheMisses").asInt();
    }

    @Test
    void aRequestTheEngineRejectedLeavesNothingExpected() throws Exception {
        Map<String, String> h = Map.of("X-Session-Id", "rejected-1");
        int missesBefore = cacheMisses();
        Http.Reply rejected = HTTP.post(router.url() + "/v1/messages", body(AgentSession.MODEL, user("rejected"), 10_000_000), h);
        assertThat(rejected.status()).isEqualTo(400);
        assertThat(rejected.body()).contains("max_tokens");

        Http.Reply real = HTTP.post(router.url() + "/v1/messages", body(AgentSession.MODEL, user("rejected"), 8), h);
        assertThat(real.status()).isEqualTo(200);
        JsonNode step = lastStep("rejected-1");
        assertThat(step.get("status").asInt()).isEqualTo(200);
        assertThat(step.get("expectedCachedTokens").asInt()).as("nothing of a refused prompt is cached").isLessThan(64);
        assertThat(step.get("cacheMiss").asBoolean()).isFalse();
        assertThat(cacheMisses()).isEqualTo(missesBefore);
    }

    @Test
    void countingTokensTouchesNoPlacementStateAndNoSessionLog() throws Exception {
        Map<String, String> h = Map.of("X-Session-Id", "counted-1");
        int missesBefore = cacheMisses();
        Http.Reply counted = HTTP.post(router.url() + "/v1/messages/count_tokens", body(AgentSession.MODEL, user("counted"), 8), h);
        assertThat(counted.status()).isEqualTo(200);
        assertThat(counted.body()).contains("input_tokens");
        assertThat(counted.decision()).as("count_tokens is not placed").isNull();
        assertThat(HTTP.get(router.url() + "/api/sessions/counted-1").status()).isEqualTo(404);

        assertThat(HTTP.post(router.url() + "/v1/messages", body(AgentSession.MODEL, user("counted"), 8), h).status()).isEqualTo(200);
        JsonNode sessions = JSON.readTree(HTTP.get(router.url() + "/api/sessions/counted-1").body());
        assertThat(sessions.get("steps")).hasSize(1);
        assertThat(sessions.at("/steps/0/decision").asText()).isEqualTo("NEW");
        assertThat(sessions.at("/steps/0/expectedCachedTokens").asInt()).isLessThan(64);
        assertThat(cacheMisses()).isEqualTo(missesBefore);
    }

    @Test
    void aModelNoReplicaServesIsNotPinned() throws Exception {
        int entriesBefore = JSON.readTree(HTTP.get(router.url() + "/api/replicas").body()).get("affinityEntries").asInt();
        Http.Reply unknown = HTTP.post(router.url() + "/v1/messages", body("no-such-model", user("unknown"), 8), Map.of("X-Session-Id", "unknown-1"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body()).contains("does not exist");
        assertThat(JSON.readTree(HTTP.get(router.url() + "/api/replicas").body()).get("affinityEntries").asInt()).isEqualTo(entriesBefore);
    }
}
