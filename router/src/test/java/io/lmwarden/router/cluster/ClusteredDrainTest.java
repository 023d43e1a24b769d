package io.lmwarden.router.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.ClusteredRouters;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drain set through one router's admin API holds on every router of the cluster (the call returns once every member
 * applied it): six sessions placed through router 0, drained through router 0, step on through router 1 and move as
 * {@code DRAIN}; router 1's {@code DELETE} takes the drain back on router 0 too. A router that joins later learns it.
 */
@Tag("cluster")
class ClusteredDrainTest {

    @Test
    void aDrainThroughOneRouterHoldsOnEvery() {
        try (SimPool sims = SimPool.start(3, SimProfile.defaultProfile(), 20);
             ClusteredRouters routers = ClusteredRouters.start(sims, 3, 2, c -> c.with(PlacementSettings.POLICY, "affinity"))) {
            Http http = new Http();
            String system = AgentSession.sharedSystem(600);
            List<AgentSession> sessions = new ArrayList<>();
            Map<String, String> home = new HashMap<>();
            for (int i = 0; i < 6; i++) {
                AgentSession s = new AgentSession("cd-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, system, 500, 700 + i);
                Http.Reply r = http.post(routers.url(0) + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                s.append(AgentSession.replyText(r.body()), 100);
                home.put(s.id(), r.replica());
                sessions.add(s);
            }
            String drained = home.get("cd-0");

            assertThat(http.post(routers.url(0) + "/api/replicas/" + drained + "/drain", "", Map.of()).status()).isEqualTo(200);
            // The drain itself is applied on every member before the call returns; whether the replica is already
            // "drained" there depends on router 0's last request leaving the cluster's in-flight count, which travels
            // on its own: at once the drain holds, and "drained" follows.
            assertThat(drain(routers.replicas(1), drained)).as("router 1 right after router 0's drain returned")
                    .isIn("draining", "drained");
            Await.until("router 1 sees " + drained + " drained", () -> drain(routers.replicas(1), drained).equals("drained"),
                    () -> routers.replicas(1).toString());

            for (AgentSession s : sessions) {
                Http.Reply r = http.post(routers.url(1) + "/v1/messages", s.nextBody(4, false), s.headers());
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.replica()).isNotEqualTo(drained);
                assertThat(r.decision()).as("step 2 of %s through router 1", s.id())
                        .isEqualTo(home.get(s.id()).equals(drained) ? "DRAIN" : "STICKY");
            }

            routers.startSlot(2);
            assertThat(drain(routers.replicas(2), drained)).as("a router that joined later").isEqualTo("drained");

            assertThat(http.delete(routers.url(1) + "/api/replicas/" + drained + "/drain").status()).isEqualTo(200);
            for (int i = 0; i < 3; i++) {
                assertThat(drain(routers.replicas(i), drained)).as("router %d after router 1 took the drain back", i).isEqualTo("none");
            }
        }
    }

    private static String drain(JsonNode replicas, String id) {
        for (JsonNode r : replicas.get("replicas")) {
            if (r.get("id").asText().equals(id)) {
                return r.get("drain").asText();
            }
        }
        throw new AssertionError("no replica " + id + " in " + replicas);
    }
}
