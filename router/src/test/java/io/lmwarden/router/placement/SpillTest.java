package io.lmwarden.router.placement;

import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.SpillThreshold;
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

class SpillTest {

    @Test
    void stepOverTheSpillThresholdMovesAndRepinsTheSession() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(3, SimProfile.defaultProfile(), 10),
                c -> c.with(PlacementSettings.POLICY, "affinity").withSpillThreshold(SpillThreshold.fixed(2)))) {
            Http http = new Http();
            AgentSession session = new AgentSession("spill-session-1", AgentSession.Identity.CLAUDE_CODE_HEADER,
                    AgentSession.sharedSystem(2000), 2000, 1);
            Http.Reply first = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
            assertThat(first.decision()).isEqualTo("NEW");
            String home = first.replica();
            session.append(AgentSession.replyText(first.body()), 400);

            // Two long requests pinned by the client to the home replica keep it at the threshold.
            List<CompletableFuture<Http.Reply>> load = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String body = new AgentSession("load-" + i, AgentSession.Identity.NONE, "load", 200, 50 + i).nextBody(400, false);
                load.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body,
                        Map.of("X-LMW-Replica", home))));
            }
            waitForInFlight(http, router, home, 2);

            Http.Reply spilled = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
            assertThat(spilled.status()).isEqualTo(200);
            assertThat(spilled.decision()).isEqualTo("SPILL");
            assertThat(spilled.replica()).isNotEqualTo(home);
            session.append(AgentSession.replyText(spilled.body()), 400);

            for (CompletableFuture<Http.Reply> f : load) {
                Http.Reply r = f.get();
                assertThat(r.decision()).isEqualTo("CLIENT_PINNED");
                assertThat(r.replica()).isEqualTo(home);
            }
            Http.Reply after = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
            assertThat(after.decision()).as("re-pinned to where it spilled").isEqualTo("STICKY");
            assertThat(after.replica()).isEqualTo(spilled.replica());

            String replicas = http.get(router.url() + "/api/replicas").body();
            assertThat(replicas).contains("\"id\":\"" + spilled.replica() + "\"");
            assertThat(http.get(router.url() + "/metrics").body())
                    .contains("lmw_spills_total{from=\"" + home + "\",to=\"" + spilled.replica() + "\"}");
        }
    }

    static void waitForInFlight(Http http, RouterUnderTest router, String replica, int n) {
        io.lmwarden.router.testing.Await.until("replica " + replica + " with " + n + " requests in flight", () -> {
            String body = http.get(router.url() + "/api/replicas").body();
            return body.contains("\"id\":\"" + replica + "\",") && body.replaceAll(".*\"id\":\"" + replica + "\",[^}]*?\"inFlight\":(\\d+).*", "$1")
                    .equals(Integer.toString(n));
        }, () -> http.get(router.url() + "/api/replicas").body());
    }
}
