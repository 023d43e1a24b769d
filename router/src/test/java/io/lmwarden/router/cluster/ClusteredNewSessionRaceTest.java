package io.lmwarden.router.cluster;

import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.ClusteredRouters;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two clustered routers over loopback in front of four simulated replicas, over real HTTP: the first step of each new
 * session arrives several times at once through both routers (an agent's parallel calls, spread by a Service), so the
 * routers race to claim its pin while each claim is settled off the event loop. Every copy of the step must end on
 * the one replica whose pin won, whether its router won the race, joined its own claim under way, or lost and was
 * placed again; the next steps stay there.
 */
@Tag("cluster")
class ClusteredNewSessionRaceTest {

    private static final double TIME_SCALE = 20;
    private static final int SESSIONS = 8;
    /** Copies of each session's first step, alternating between the two routers. */
    private static final int COPIES = 4;

    @Test
    void concurrentFirstStepsThroughBothRoutersEndOnOneHome() throws Exception {
        try (ClusteredRouters routers = ClusteredRouters.start(SimPool.start(4, SimProfile.defaultProfile(), TIME_SCALE), 2, 2,
                // No spill: a home is given up only for a race lost, never for the load of the copies themselves.
                c -> c.withSpillThreshold(SpillThreshold.fixed(1000)))) {
            routers.awaitAgreement(2, Duration.ofSeconds(30));
            Http http = new Http();
            String system = AgentSession.sharedSystem(2000);
            List<AgentSession> sessions = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                sessions.add(new AgentSession("race-" + s + "-0a1b2c3d-4e5f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 3000, 500 + s));
            }
            Map<String, List<String>> where = new ConcurrentHashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(SESSIONS * COPIES);
            CountDownLatch go = new CountDownLatch(1);
            try {
                List<Future<Http.Reply>> replies = new ArrayList<>();
                for (AgentSession session : sessions) {
                    String body = session.nextBody(16, false);
                    for (int c = 0; c < COPIES; c++) {
                        String router = routers.url(c % 2);
                        replies.add(pool.submit(() -> {
                            go.await();
                            Http.Reply r = http.post(router + "/v1/messages?beta=true", body, session.headers());
                            where.computeIfAbsent(session.id(), k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(r.replica() + " " + r.decision());
                            return r;
                        }));
                    }
                }
                go.countDown();
                for (Future<Http.Reply> f : replies) {
                    Http.Reply r = f.get(120, TimeUnit.SECONDS);
                    assertThat(r.status()).as("status: %s", r.body()).isEqualTo(200);
                }
            } finally {
                pool.shutdownNow();
            }
            for (AgentSession s : sessions) {
                assertThat(where.get(s.id())).as("replicas of the copies of %s's first step", s.id()).hasSize(COPIES);
                assertThat(where.get(s.id()).stream().map(r -> r.split(" ")[0]).distinct())
                        .as("replicas of %s (two homes?): %s", s.id(), where.get(s.id())).hasSize(1);
            }
            // One pin per session, the same on both routers; the next step through either router stays home.
            ClusteredPinsTest.awaitTrue(() -> routers.replicas(0).path("affinityEntries").asInt() == SESSIONS
                    && routers.replicas(1).path("affinityEntries").asInt() == SESSIONS);
            for (int k = 0; k < SESSIONS; k++) {
                AgentSession s = sessions.get(k);
                String home = where.get(s.id()).get(0).split(" ")[0];
                for (int i = 0; i < 2; i++) {
                    Http.Reply r = http.post(routers.url((k + i) % 2) + "/v1/messages?beta=true", s.nextBody(16, false), s.headers());
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.replica()).as("next step of %s via router %d", s.id(), (k + i) % 2).isEqualTo(home);
                    assertThat(r.decision()).isEqualTo("STICKY");
                }
            }
        }
    }
}
