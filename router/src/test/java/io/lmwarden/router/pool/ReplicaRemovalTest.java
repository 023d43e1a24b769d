package io.lmwarden.router.pool;

import io.lmwarden.router.config.PlacementSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A replica of a static list dies: its sessions are re-placed and it gets no new requests. */
class ReplicaRemovalTest {

    @Test
    void deadReplicaGetsNoNewRequestsAndItsSessionsMove() {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(3, SimProfile.defaultProfile(), 20),
                c -> c.with(PlacementSettings.POLICY, "affinity"))) {
            Http http = new Http();
            String system = AgentSession.sharedSystem(1000);
            List<AgentSession> sessions = new ArrayList<>();
            Map<String, String> home = new HashMap<>();
            for (int i = 0; i < 6; i++) {
                AgentSession s = new AgentSession("removal-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 1000, i);
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                s.append(AgentSession.replyText(r.body()), 200);
                home.put(s.id(), r.replica());
                sessions.add(s);
            }
            assertThat(home.values()).contains("sim-1");

            router.sims().kill(1);

            for (AgentSession s : sessions) {
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).as("step after the replica died").isEqualTo(200);
                assertThat(r.replica()).isNotEqualTo("sim-1");
                if (home.get(s.id()).equals("sim-1")) {
                    assertThat(r.decision()).isIn("FALLBACK", "NEW");
                } else {
                    assertThat(r.decision()).isEqualTo("STICKY");
                }
                s.append(AgentSession.replyText(r.body()), 200);
            }
            // Once marked, the dead replica is not even tried: new sessions never land there.
            for (int i = 0; i < 6; i++) {
                AgentSession s = new AgentSession("after-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 500, 100 + i);
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.replica()).isNotEqualTo("sim-1");
                assertThat(r.decision()).isEqualTo("NEW");
            }
            assertThat(http.get(router.url() + "/api/replicas").body()).contains("\"id\":\"sim-1\"")
                    .containsPattern("\"id\":\"sim-1\",[^}]*\"ready\":false");
        }
    }

    /** Behaviour 5 of issue 10: a killed replica shows no stale engine figures and keeps no sessions. */
    @Test
    void aDeadReplicaReportsNoEngineFiguresAndHoldsNoSessions() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20),
                c -> c.with(PlacementSettings.POLICY, "affinity"))) {
            Http http = new Http();
            String system = AgentSession.sharedSystem(1000);
            for (int i = 0; i < 4; i++) {
                AgentSession s = new AgentSession("dead-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 800, 50 + i);
                assertThat(http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers()).status()).isEqualTo(200);
            }
            JsonNode before = replica(http, router, "sim-1");
            assertThat(before.get("stickySessions").asInt()).as("sessions pinned to sim-1 before it dies").isPositive();
            assertThat(before.get("running").isNumber()).isTrue();

            router.sims().kill(1);
            io.lmwarden.router.testing.Await.until("the killed sim-1 out of rotation", () -> !replicaNow(http, router, "sim-1").get("ready").asBoolean(),
                    () -> replicaNow(http, router, "sim-1").toString());
            JsonNode after = replica(http, router, "sim-1");
            assertThat(after.get("ready").asBoolean()).isFalse();
            assertThat(after.get("stickySessions").asInt()).as("its sessions were released").isZero();
            for (String figure : List.of("running", "waiting", "kvCacheUsage", "prefixHitRate", "kvCapacityTokens")) {
                assertThat(after.get(figure).isNull()).as("%s of a replica that is not ready", figure).isTrue();
            }
            JsonNode all = JSON.readTree(http.get(router.url() + "/api/replicas").body());
            assertThat(all.get("affinityEntries").asInt()).isEqualTo(replica(http, router, "sim-0").get("stickySessions").asInt());
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode replicaNow(Http http, RouterUnderTest router, String id) {
        try {
            return replica(http, router, id);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode replica(Http http, RouterUnderTest router, String id) throws Exception {
        for (JsonNode r : JSON.readTree(http.get(router.url() + "/api/replicas").body()).get("replicas")) {
            if (r.get("id").asText().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no replica " + id);
    }
}
