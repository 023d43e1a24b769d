package io.lmwarden.router.stats;

import io.lmwarden.router.session.SessionKey;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SessionLogTest {

    private static SessionStep step(String session, long millis, String replica, String movedFrom) {
        return new SessionStep(millis, session, "header", "m", "/v1/chat/completions", false,
                new SessionStep.Placed(replica, movedFrom == null ? "STICKY" : "SPILL", "", movedFrom),
                new SessionStep.Cache(100, 0, null, 0, "estimated", 0, false, -1),
                new SessionStep.Timing(5, 1, null, false), new SessionStep.Result(1, 200, true, "ok"));
    }

    @Test
    void keepsTheLatestStepsOfTheMostRecentlyActiveSessionsAndFindsThemByHash() {
        SessionLog log = new SessionLog(2, 3);
        log.record(step("a", 10, "sim-0", null));
        log.record(step("b", 20, "sim-1", null));
        for (int i = 0; i < 5; i++) {
            log.record(step("a", 30 + i, "sim-0", null));
        }
        // "b" is the least recently active: a third session pushes it out, not "a" which arrived first.
        log.record(step("c", 40, "sim-2", null));
        assertThat(log.steps("b")).isEmpty();
        assertThat(log.keyForHash(SessionKey.displayHash("b"))).as("an evicted session's hash finds nothing").isEmpty();
        assertThat(log.keyForHash(SessionKey.displayHash("a"))).contains("a");
        assertThat(log.keyForHash("h-0000000000000000")).isEmpty();
        assertThat(log.steps("a").orElseThrow()).extracting(SessionStep::epochMillis).containsExactly(32L, 33L, 34L);
        assertThat(log.recentSessions(10)).containsExactly("c", "a");
    }

    @Test
    void arrivalsAreInOrderOfFirstStepWithCountsLastStepAndKeptSpills() {
        SessionLog log = new SessionLog(10, 2);
        log.record(step("late", 50, "sim-0", null));
        log.record(step("early", 10, "sim-1", null));
        log.record(step("early", 60, "sim-2", "sim-1"));
        log.record(step("early", 70, "sim-1", null));
        // A step that ended after a later one is put where it arrived.
        log.record(step("late", 55, "sim-0", null));
        List<SessionLog.Summary> all = log.arrivals(10);
        assertThat(all).extracting(SessionLog.Summary::sessionKey).containsExactly("early", "late");
        SessionLog.Summary early = all.get(0);
        assertThat(early.firstMillis()).isEqualTo(10);
        assertThat(early.lastMillis()).isEqualTo(70);
        assertThat(early.steps()).as("steps recorded, beyond the two kept").isEqualTo(3);
        assertThat(early.lastReplica()).isEqualTo("sim-1");
        assertThat(early.spills()).extracting(st -> st.placed().movedFrom()).containsExactly("sim-1");
        assertThat(log.steps("late").orElseThrow()).extracting(SessionStep::epochMillis).containsExactly(50L, 55L);
        assertThat(log.arrivals(1)).extracting(SessionLog.Summary::sessionKey).containsExactly("late");
    }

    /** {@code GET /api/sessions/{key}} shows a step as one flat object, as before its parts were records of their own. */
    @Test
    void aStepIsOneFlatJsonObject() throws Exception {
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                .valueToTree(step("a", 10, "sim-1", "sim-0"));
        assertThat(json.path("replica").asText()).isEqualTo("sim-1");
        assertThat(json.path("movedFrom").asText()).isEqualTo("sim-0");
        assertThat(json.path("decision").asText()).isEqualTo("SPILL");
        assertThat(json.path("promptTokens").asLong()).isEqualTo(100);
        assertThat(json.path("expectedFrom").asText()).isEqualTo("estimated");
        assertThat(json.path("ttfbMillis").asDouble()).isEqualTo(5);
        assertThat(json.path("status").asInt()).isEqualTo(200);
        assertThat(json.path("outcome").asText()).isEqualTo("ok");
        assertThat(json.has("placed") || json.has("cache") || json.has("timing") || json.has("result")).isFalse();
    }
}
