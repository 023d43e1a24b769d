package io.lmwarden.router.cluster;

import io.lmwarden.router.config.AdmissionSettings;
import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.ClusteredRouters;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three routers clustered over loopback in front of four simulated replicas, over real HTTP: each
 * step of a session goes to the next router in turn and the session still stays on one replica.
 * Then a fourth router joins and serves the existing sessions STICKY, one router leaves and the
 * others keep its sessions, and a request in flight through one router counts on the others.
 */
@Tag("cluster")
class ClusteredRoutersTest {

    private static final double TIME_SCALE = 20;
    private static final int SESSIONS = 12;
    private static final int STEPS = 4;

    @Test
    void routersAgreeOnEverySessionsHome() throws Exception {
        try (ClusteredRouters routers = ClusteredRouters.start(SimPool.start(4, SimProfile.defaultProfile(), TIME_SCALE), 4, 3, c -> c)) {
            routers.awaitAgreement(3, Duration.ofSeconds(30));
            Http http = new Http();
            String system = AgentSession.sharedSystem(4000);
            List<AgentSession> sessions = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                sessions.add(new AgentSession("clu-" + s + "-0a1b2c3d-4e5f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 6000, 100 + s));
            }
            Map<String, List<String>> where = new ConcurrentHashMap<>();
            Map<String, List<String>> why = new ConcurrentHashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int s = 0; s < SESSIONS; s++) {
                    AgentSession session = sessions.get(s);
                    int first = s % 3;
                    running.add(pool.submit(() -> {
                        for (int step = 0; step < STEPS; step++) {
                            // Each step reaches a different router than the one before.
                            step(http, routers.url((first + step) % 3), session, where, why);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            Set<String> used = new HashSet<>();
            for (AgentSession s : sessions) {
                List<String> replicas = where.get(s.id());
                assertThat(replicas).as("steps of %s", s.id()).hasSize(STEPS).doesNotContainNull();
                assertThat(new HashSet<>(replicas)).as("replicas of %s (split across routers?)", s.id()).hasSize(1);
                assertThat(why.get(s.id()).subList(1, STEPS)).as("decisions of %s", s.id()).containsOnly("STICKY");
                used.addAll(replicas);
            }
            assertThat(used).as("sessions spread over every replica").hasSize(4);

            // Every router sees all 12 pins, and they agree.
            routers.awaitAgreement(3, Duration.ofSeconds(10));
            for (int i = 0; i < 3; i++) {
                assertThat(routers.replicas(i).path("affinityEntries").asInt()).as("pins router %d sees", i).isEqualTo(SESSIONS);
            }

            // A fourth router joins: it has learned every pin before it serves its first request.
            routers.startSlot(3);
            for (AgentSession s : sessions) {
                step(http, routers.url(3), s, where, why);
            }
            for (AgentSession s : sessions) {
                assertThat(last(why.get(s.id()))).as("decision of the new router for %s", s.id()).isEqualTo("STICKY");
                assertThat(new HashSet<>(where.get(s.id()))).as("replicas of %s", s.id()).hasSize(1);
            }

            // A request in flight through router 0 counts on router 1 as load of its replica.
            AgentSession longOne = sessions.get(0);
            String home = where.get(longOne.id()).get(0);
            CompletableFuture<Http.Reply> inFlight = CompletableFuture.supplyAsync(() ->
                    http.post(routers.url(0) + "/v1/messages?beta=true", longOne.nextBody(1500, false), longOne.headers()));
            assertThat(awaitInFlight(routers, 1, home, Duration.ofSeconds(5))).as("router 1 sees router 0's request on " + home).isTrue();
            assertThat(inFlight.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);

            // Router 0 leaves: the others keep its sessions where they were.
            routers.stopSlot(0);
            routers.awaitAgreement(3, Duration.ofSeconds(30));
            for (int k = 1; k < SESSIONS; k++) {
                AgentSession s = sessions.get(k);
                step(http, routers.url(1 + k % 3), s, where, why);
                assertThat(last(why.get(s.id()))).as("decision for %s after router 0 left", s.id()).isEqualTo("STICKY");
                assertThat(new HashSet<>(where.get(s.id()))).as("replicas of %s", s.id()).hasSize(1);
            }
        }
    }

    /**
     * Admission across the routers: a KV budget for one session per replica, not two. A session admitted
     * through one router is resident through the others, so each of its steps, whichever router it
     * reaches, goes home at once; a router that took another router's resident for a newcomer (or counted
     * its blocks twice) would queue the step or move the session.
     */
    @Test
    void aSessionResidentThroughOneRouterGoesHomeAtOnceThroughTheOthers() throws Exception {
        try (ClusteredRouters routers = ClusteredRouters.start(SimPool.start(2, SimProfile.defaultProfile(), TIME_SCALE), 3, 3,
                c -> c.with(AdmissionSettings.ADMISSION, true).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS).with(AdmissionSettings.KV_BUDGET, 0.3).with(AdmissionSettings.RESIDENCY_IDLE, Duration.ofSeconds(30)))) {
            routers.awaitAgreement(3, Duration.ofSeconds(30));
            Http http = new Http();
            String system = AgentSession.sharedSystem(4000);
            List<AgentSession> sessions = List.of(
                    new AgentSession("adm-0-0a1b2c3d-4e5f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 24_000, 300),
                    new AgentSession("adm-1-0a1b2c3d-4e5f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 24_000, 301));
            Map<String, List<String>> where = new ConcurrentHashMap<>();
            Map<String, List<String>> why = new ConcurrentHashMap<>();
            List<String> queueWaits = new ArrayList<>();
            for (int step = 0; step < STEPS; step++) {
                for (int k = 0; k < sessions.size(); k++) {
                    AgentSession session = sessions.get(k);
                    String router = routers.url((k + step) % 3);
                    Http.Reply r = http.post(router + "/v1/messages?beta=true", session.nextBody(16, false), session.headers());
                    assertThat(r.status()).as("status of %s via %s: %s", session.id(), router, r.body()).isEqualTo(200);
                    where.computeIfAbsent(session.id(), x -> new ArrayList<>()).add(r.replica());
                    why.computeIfAbsent(session.id(), x -> new ArrayList<>()).add(r.decision());
                    if (r.header("X-LMW-Queue-Wait-Ms") != null) {
                        queueWaits.add(session.id() + " step " + step + " via router " + (k + step) % 3);
                    }
                    session.append(AgentSession.replyText(r.body()), 800);
                }
                // The agents' pause: long enough for every router's load report to reach the others.
                RouterUnderTest.sleep(400);
            }
            assertThat(queueWaits).as("steps that waited in an admission queue").isEmpty();
            for (AgentSession s : sessions) {
                assertThat(new HashSet<>(where.get(s.id()))).as("replicas of %s", s.id()).hasSize(1);
                assertThat(why.get(s.id()).subList(1, STEPS)).as("decisions of %s", s.id()).containsOnly("STICKY");
            }
            assertThat(where.get(sessions.get(0).id()).get(0)).as("one session per replica fits the budget")
                    .isNotEqualTo(where.get(sessions.get(1).id()).get(0));
        }
    }

    private static void step(Http http, String router, AgentSession session, Map<String, List<String>> where, Map<String, List<String>> why) {
        Http.Reply r = http.post(router + "/v1/messages?beta=true", session.nextBody(16, false), session.headers());
        assertThat(r.status()).as("status of %s via %s: %s", session.id(), router, r.body()).isEqualTo(200);
        where.computeIfAbsent(session.id(), k -> new ArrayList<>()).add(r.replica());
        why.computeIfAbsent(session.id(), k -> new ArrayList<>()).add(r.decision());
        session.append(AgentSession.replyText(r.body()), 800);
    }

    private static boolean awaitInFlight(ClusteredRouters routers, int router, String replica, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            for (JsonNode row : routers.replicas(router).path("replicas")) {
                if (row.path("id").asText().equals(replica) && row.path("inFlight").asInt() >= 1) {
                    return true;
                }
            }
            RouterUnderTest.sleep(20);
        }
        return false;
    }

    private static String last(List<String> l) {
        return l.get(l.size() - 1);
    }
}
