package io.lmwarden.router.proxy;

import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class NoReplicaTest {

    @Test
    void allReplicasDownGivesA503AndNotReady() {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.named("tiny"), 5), c -> c)) {
            Http http = new Http();
            // One replica reports unhealthy, the other dies.
            assertThat(http.post(router.sims().url(0) + "/sim/faults", "{\"unhealthy\":true}", Map.of()).status()).isEqualTo(200);
            router.sims().kill(1);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (http.get(router.url() + "/readyz").status() != 503 && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(50);
            }
            assertThat(http.get(router.url() + "/readyz").status()).isEqualTo(503);
            assertThat(http.get(router.url() + "/healthz").status()).isEqualTo(200);

            Http.Reply r = http.post(router.url() + "/v1/messages", "{\"model\":\"" + AgentSession.MODEL
                    + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of());
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.body()).contains("\"type\":\"overloaded_error\"").contains("no ready replica");

            // The unhealthy one recovers: the router sends work there again.
            http.post(router.sims().url(0) + "/sim/faults", "{\"unhealthy\":false}", Map.of());
            deadline = System.nanoTime() + 5_000_000_000L;
            while (http.get(router.url() + "/readyz").status() != 200 && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(50);
            }
            Http.Reply ok = http.post(router.url() + "/v1/messages", "{\"model\":\"" + AgentSession.MODEL
                    + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of());
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.replica()).isEqualTo("sim-0");
        }
    }
}
