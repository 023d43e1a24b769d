package io.lmwarden.router.api;

import io.lmwarden.router.config.ServerSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What /api/replicas and /api/sessions say about each replica's sessions and each session's arrival:
 * raw keys for an admin, hashes for everyone else, and a recent window the caller may choose within bounds.
 */
class ReplicaActivityApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void listsEachReplicasSessionsAsHashesUnlessTheCallerIsAnAdmin() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c.with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("s3cret")))) {
            AgentWorkload.Result traffic = new AgentWorkload(4, 2, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "act");
            assertThat(traffic.statuses()).containsOnly(200);
            Http http = new Http();
            Map<String, String> admin = Map.of("Authorization", "Bearer s3cret");
            assertThat(http.get(router.url() + "/api/replicas").status()).isEqualTo(401);

            JsonNode replicas = JSON.readTree(http.get(router.url() + "/api/replicas", admin).body()).path("replicas");
            List<String> listed = new ArrayList<>();
            for (JsonNode r : replicas) {
                for (JsonNode s : r.path("recentSessions")) {
                    String key = s.path("key").asText();
                    listed.add(key);
                    assertThat(traffic.replicasBySession().get(key).get(0)).as("home of %s", key).isEqualTo(r.path("id").asText());
                    assertThat(s.path("sticky").asBoolean()).isTrue();
                    assertThat(s.path("steps").asInt()).isEqualTo(2);
                }
                assertThat(r.path("recent").path("windowSeconds").asInt()).isEqualTo(300);
                assertThat(r.path("spilledOut").asInt()).isZero();
            }
            assertThat(listed).containsExactlyInAnyOrderElementsOf(traffic.replicasBySession().keySet());

            JsonNode arrivals = JSON.readTree(http.get(router.url() + "/api/sessions", admin).body()).path("arrivals");
            assertThat(arrivals).hasSize(4);
            for (JsonNode a : arrivals) {
                assertThat(a.path("hash").asText()).isEqualTo(SessionKey.displayHash(a.path("key").asText()));
                assertThat(a.path("home").asText()).isEqualTo(traffic.replicasBySession().get(a.path("key").asText()).get(0));
            }

            JsonNode narrow = JSON.readTree(http.get(router.url() + "/api/replicas?window=30", admin).body());
            assertThat(narrow.path("replicas").get(0).path("recent").path("windowSeconds").asInt()).isEqualTo(30);
            for (String bad : List.of("0", "301", "five")) {
                Http.Reply r = http.get(router.url() + "/api/replicas?window=" + bad, admin);
                assertThat(r.status()).as("window=%s", bad).isEqualTo(400);
                assertThat(JSON.readTree(r.body()).path("error").path("message").asText()).contains("window must be a whole number of seconds from 1 to 300");
            }
        }
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 20), c -> c)) {
            AgentWorkload.Result traffic = new AgentWorkload(2, 1, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "anon");
            Http http = new Http();
            String replicas = http.get(router.url() + "/api/replicas").body();
            String sessions = http.get(router.url() + "/api/sessions").body();
            for (String key : traffic.replicasBySession().keySet()) {
                assertThat(replicas).doesNotContain(key).contains(SessionKey.displayHash(key));
                assertThat(sessions).doesNotContain(key).contains(SessionKey.displayHash(key));
            }
        }
    }
}
