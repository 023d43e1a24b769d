package io.lmwarden.router.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.ClusteredRouters;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission across clustered routers over real HTTP, in front of a saturated simulated pool (two replicas whose KV
 * cache holds about two sessions each, twelve agents), each step of a session sent to the next router: the way a
 * Kubernetes Service spreads the connections of agents that open one per step. Admission engages on evidence as one
 * router would: each router judges the steps it receives against the session's previous step, served through another
 * router (the session's facts travel through the cluster), so its misses count here; every router decides on the
 * evidence of all and reports the same engaged state; a router that joins mid-run is engaged at once, on its peers'
 * evidence, and then judges steps by the facts it received. Without the shared facts every router sees a session
 * only every third step, its pause three pauses long, and counts no evidence at all.
 */
@Tag("cluster")
class ClusteredAdmissionTest {

    /** Slow enough that the replicas' break-even (0.2 s) is several agents' pauses. */
    private static final double TIME_SCALE = 10;
    private static final int AGENTS = 12;
    /** Steps of one session (its working set still fits a replica); then the agent starts another. */
    private static final int STEPS = 8;
    /** The agent's tool run between steps, on the wall clock (50 ms of workload time at this time scale). */
    private static final long PAUSE_MS = 5;
    /** 440 blocks × 16 = 7,040 tokens: a shared ~1,000-token system prompt plus two sessions of up to ~2,900 tokens. */
    private static final SimProfile TWO_SESSIONS_PER_REPLICA = SimProfile.defaultProfile().withKvBlocks(440);

    @Test
    void admissionEngagesOnEveryRouterOnTheEvidenceOfAllAndARouterThatJoinsDecidesLikeTheOthers() throws Exception {
        try (ClusteredRouters routers = ClusteredRouters.start(SimPool.start(2, TWO_SESSIONS_PER_REPLICA, TIME_SCALE), 4, 3,
                c -> c.with(PlacementSettings.POLICY, "affinity").with(AdmissionSettings.ADMISSION, true)
                        .with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_EVIDENCE).withTimeScale(TIME_SCALE)
                        // A step of a session in progress waits at most this (3 s of wall time), then goes over the budget.
                        .with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofSeconds(30)))) {
            routers.awaitAgreement(3, Duration.ofSeconds(30));
            AtomicInteger routersUp = new AtomicInteger(3);
            AtomicBoolean stop = new AtomicBoolean();
            List<Integer> inProgressStatuses = Collections.synchronizedList(new ArrayList<>());
            ExecutorService agents = Executors.newFixedThreadPool(AGENTS);
            List<Future<?>> running = new ArrayList<>();
            String system = AgentSession.sharedSystem(4000);
            for (int a = 0; a < AGENTS; a++) {
                int agent = a;
                running.add(agents.submit(() -> {
                    Http http = new Http();
                    for (int n = 0; !stop.get(); n++) {
                        AgentSession session = new AgentSession("facts-" + agent + "-" + n + "-5e55-10ff", AgentSession.Identity.CLAUDE_CODE_HEADER,
                                system, 6000, 1000L * agent + n);
                        for (int step = 0; step < STEPS && !stop.get(); step++) {
                            String router = routers.url((agent + step) % routersUp.get());
                            String body = session.nextBody(16, false);
                            Http.Reply r = http.post(router + "/v1/messages", body, session.headers());
                            // A newcomer may be told to come back later while the budget is taken (the queue timeout).
                            while (step == 0 && r.status() != 200 && !stop.get()) {
                                RouterUnderTest.sleep(100);
                                r = http.post(router + "/v1/messages", body, session.headers());
                            }
                            if (step > 0) {
                                inProgressStatuses.add(r.status());
                            }
                            if (r.status() != 200) {
                                break;
                            }
                            session.append(AgentSession.replyText(r.body()), 600);
                            RouterUnderTest.sleep(PAUSE_MS);
                        }
                    }
                    return null;
                }));
            }
            try {
                Await.until("admission engaged on all three routers at once, each having judged steps whose previous step another router served",
                        () -> all(3, i -> engaged(routers, i) && thrash(routers, i).path("evidenceStepsHere").asLong() > 0
                                && thrash(routers, i).path("missedStepsHere").asLong() > 0),
                        () -> states(routers, 3));
                // Every router reports the cluster's evidence: the same steps counted, its own among them; and the meter.
                for (int i = 0; i < 3; i++) {
                    int router = i;
                    Await.until("router " + i + " meters admission as engaged", () -> engaged(routers, router)
                            && meteredEngaged(routers, router), () -> states(routers, 3));
                    JsonNode t = thrash(routers, i);
                    assertThat(t.path("routersCounted").asInt()).as("routers counted by %d", i).isEqualTo(3);
                    assertThat(t.path("evidenceSteps").asLong()).as("evidence of the cluster on %d", i).isGreaterThan(t.path("evidenceStepsHere").asLong());
                }

                // A fourth router joins mid-run: it is engaged on its peers' evidence before it has any of its own.
                routers.startSlot(3);
                Await.until("the router that joined engaged before it judged a step", () -> engaged(routers, 3), () -> states(routers, 4));
                assertThat(thrash(routers, 3).path("evidenceStepsHere").asLong()).as("steps the new router judged before its first").isZero();
                routersUp.set(4);
                // It judges the sessions' steps by the facts it received: their previous steps ran through the others.
                Await.until("the router that joined counted evidence, and all four engaged",
                        () -> thrash(routers, 3).path("evidenceStepsHere").asLong() > 0 && all(4, i -> engaged(routers, i)),
                        () -> states(routers, 4));
            } finally {
                stop.set(true);
                agents.shutdown();
            }
            for (Future<?> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
            // A step of a session in progress is never turned away, whichever router it reaches.
            assertThat(inProgressStatuses).isNotEmpty().containsOnly(200);
        }
    }

    private static boolean all(int n, IntPredicate p) {
        for (int i = 0; i < n; i++) {
            if (!p.test(i)) {
                return false;
            }
        }
        return true;
    }

    /** The router's {@code lmw_admission_engaged} gauge reads 1. */
    private static boolean meteredEngaged(ClusteredRouters routers, int i) {
        return new Http().get(routers.url(i) + "/metrics").body().lines()
                .anyMatch(l -> l.startsWith("lmw_admission_engaged") && l.endsWith(" 1.0"));
    }

    private static JsonNode thrash(ClusteredRouters routers, int i) {
        return routers.replicas(i).path("queue").path("thrash");
    }

    private static boolean engaged(ClusteredRouters routers, int i) {
        return thrash(routers, i).path("engaged").asBoolean();
    }

    private static String states(ClusteredRouters routers, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append("\n router ").append(i).append(": ").append(thrash(routers, i));
        }
        return b.toString();
    }
}
