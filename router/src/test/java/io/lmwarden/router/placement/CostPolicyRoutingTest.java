package io.lmwarden.router.placement;

import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The cost policy over real HTTP against simulated replicas. */
class CostPolicyRoutingTest {

    @Test
    void keepsSessionsStickyAtLowLoad() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(4, SimProfile.defaultProfile(), 20), c -> c.with(PlacementSettings.POLICY, "cost"))) {
            AgentWorkload.Result r = new AgentWorkload(4, 5, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "cost-low");
            assertThat(r.statuses()).hasSize(20).containsOnly(200);
            for (Map.Entry<String, List<String>> e : r.replicasBySession().entrySet()) {
                assertThat(new HashSet<>(e.getValue())).as("replicas of %s", e.getKey()).hasSize(1);
                List<String> d = r.decisionsBySession().get(e.getKey());
                assertThat(d.subList(1, d.size())).containsOnly("STICKY");
            }
            assertThat(r.hitRate()).isGreaterThan(0.7);
        }
    }

    @Test
    void movesASessionWhenItsHomeQueueIsLong() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 2),
                c -> c.with(PlacementSettings.POLICY, "cost").withSpillThreshold(SpillThreshold.fixed(64)))) {
            Http http = new Http();
            AgentSession s = new AgentSession("cost-move", AgentSession.Identity.CLAUDE_CODE_HEADER, AgentSession.sharedSystem(1000), 2000, 3);
            Http.Reply first = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
            String home = first.replica();
            s.append(AgentSession.replyText(first.body()), 200);

            // Big cold prompts pinned to the home replica: ~60k tokens of prefill queued ahead.
            List<CompletableFuture<Http.Reply>> load = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String b = new AgentSession("heavy-" + i, AgentSession.Identity.NONE, "heavy " + i, 40_000, 70 + i).nextBody(2, false);
                load.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", b, Map.of("X-LMW-Replica", home))));
            }
            RouterUnderTest.sleep(300);
            Http.Reply moved = http.post(router.url() + "/v1/messages", s.nextBody(4, false), s.headers());
            assertThat(moved.status()).isEqualTo(200);
            assertThat(moved.decision()).isEqualTo("SPILL");
            assertThat(moved.replica()).isNotEqualTo(home);
            load.forEach(CompletableFuture::join);
            assertThat(http.get(router.url() + "/api/sessions/cost-move").body()).contains("expected").contains("moved");
            // The spill is counted from the home it left to where it went, by replica id only.
            assertThat(http.get(router.url() + "/metrics").body())
                    .contains("lmw_spills_total{from=\"" + home + "\",to=\"" + moved.replica() + "\"}");
        }
    }
}
