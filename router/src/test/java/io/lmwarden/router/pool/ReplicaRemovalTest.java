package io.lmwarden.router.pool;

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
                c -> c.withPolicy("affinity"))) {
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
}
