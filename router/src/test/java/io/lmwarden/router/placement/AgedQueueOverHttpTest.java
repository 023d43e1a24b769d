package io.lmwarden.router.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimFaults;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The aged queue over real HTTP: one simulated replica whose KV budget holds one session, so steps of sessions in
 * progress leave the queue one at a time. A newcomer's step is held in the replica (the simulator's {@code holdNext})
 * while sessions in progress queue behind it; the router runs and the simulator both ten times faster than the wall clock.
 */
class AgedQueueOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TIME_SCALE = 10;

    private final ExecutorService clients = Executors.newFixedThreadPool(4);
    private final Http http = new Http();

    @AfterEach
    void stop() {
        clients.shutdownNow();
    }

    private static RouterUnderTest start(Duration waitBound) {
        return RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), TIME_SCALE),
                c -> c.withTimeScale(TIME_SCALE).with(AdmissionSettings.ADMISSION, true)
                        .with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS).with(AdmissionSettings.KV_BUDGET, 0.0001)
                        .with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofMinutes(30)).with(AdmissionSettings.QUEUE_WAIT_BOUND, waitBound));
    }

    /**
     * "heavy" has had about twice the service of "light" (a first turn twice as long): by attained service alone, light's
     * next step goes first. Heavy's step queues first and has waited 12 s (workload) of the 30 s bound when light's comes,
     * 3.2 doublings of service made up: heavy's step is admitted first.
     */
    @Test
    void underSaturationTheStepThatWaitedLongestIsAdmittedFirst() throws Exception {
        try (RouterUnderTest router = start(Duration.ofSeconds(30))) {
            SimFaults faults = SimFaults.of(router.sims(), 0);
            AgentSession light = session("light", 1200);
            AgentSession heavy = session("heavy", 2400);
            step(router, light);
            step(router, heavy);
            holdANewcomer(router, faults);

            CompletableFuture<Http.Reply> heavyNext = async(router, heavy);
            Await.until("heavy's step waited 12 s of workload time", () -> queue(router).path("oldestWaitSeconds").asDouble() * TIME_SCALE >= 12,
                    () -> queue(router).toString());
            CompletableFuture<Http.Reply> lightNext = async(router, light);
            Await.until("both steps queued", () -> queue(router).path("length").asInt() == 2, () -> queue(router).toString());
            faults.release();

            assertThat(heavyNext.get(120, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(lightNext.get(120, TimeUnit.SECONDS).status()).isEqualTo(200);
            // The budget holds one session: light's step goes upstream only once heavy's has ended, or the other way round.
            assertThat(sentUpstreamAt(router, heavy)).isLessThan(sentUpstreamAt(router, light));
            JsonNode q = queue(router);
            assertThat(q.path("admittedAtWaitBound").asLong()).as("admitted by their order, not the bound: %s", q).isZero();
            JsonNode inProgress = q.path("waitedBehind").path("inProgress");
            assertThat(inProgress.path("steps").asLong()).isEqualTo(2);
            // Light waited behind heavy, a step of a session in progress ahead of it.
            assertThat(inProgress.path("secondsByCause").path("sessionsInProgressAhead").asDouble()).as("%s", inProgress).isPositive();
            assertThat(metric(http.get(router.url() + "/metrics").body(), "sessionsInProgressAhead", "in_progress")).isPositive();
        }
    }

    /**
     * The newcomer's step is never let go: the replica's budget never has room. A step of a session in progress is
     * admitted all the same once it has waited the bound (10 s of workload time), over the budget.
     */
    @Test
    void noStepOfASessionInProgressWaitsPastTheBound() throws Exception {
        try (RouterUnderTest router = start(Duration.ofSeconds(10))) {
            SimFaults faults = SimFaults.of(router.sims(), 0);
            AgentSession s = session("bounded", 1200);
            step(router, s);
            holdANewcomer(router, faults);

            Http.Reply r = async(router, s).get(120, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(faults.state().path("held").asInt()).as("the newcomer still holds the replica").isEqualTo(1);
            assertThat(Long.parseLong(r.header("X-LMW-Queue-Wait-Ms")) * TIME_SCALE).as("it waited the bound").isGreaterThanOrEqualTo(10_000);
            JsonNode q = queue(router);
            assertThat(q.path("admittedAtWaitBound").asLong()).as("%s", q).isEqualTo(1);
            assertThat(q.path("waitedBehind").path("inProgress").path("secondsByCause").path("runningSteps").asDouble()).isPositive();
            faults.release();
        }
    }

    private static AgentSession session(String id, int firstTurnChars) {
        return new AgentSession(id + "-5e55-10ff", AgentSession.Identity.CLAUDE_CODE_HEADER, "system of " + id, firstTurnChars, id.hashCode());
    }

    /** A newcomer's step that the replica holds in flight: every later step finds no room in the budget. */
    private void holdANewcomer(RouterUnderTest router, SimFaults faults) {
        faults.holdNext(1);
        AgentSession newcomer = session("newcomer", 400);
        CompletableFuture.runAsync(() -> http.post(router.url() + "/v1/messages", newcomer.nextBody(16, false), newcomer.headers()), clients);
        faults.awaitHeld(1);
    }

    private void step(RouterUnderTest router, AgentSession s) {
        Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(16, false), s.headers());
        assertThat(r.status()).as("%s: %s", s.id(), r.body()).isEqualTo(200);
        s.append(AgentSession.replyText(r.body()), 200);
    }

    /** The session's next step, sent on another thread. */
    private CompletableFuture<Http.Reply> async(RouterUnderTest router, AgentSession s) {
        String body = s.nextBody(16, false);
        return CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, s.headers()), clients);
    }

    /**
     * When the router sent the session's second step upstream, by its own record of the step: received (epoch ms) plus
     * its own share of the time to first byte, which holds the queue wait.
     */
    private double sentUpstreamAt(RouterUnderTest router, AgentSession s) {
        JsonNode[] steps = new JsonNode[1];
        Await.until(s.id() + "'s two steps recorded", () -> (steps[0] = sessionSteps(router, s)).size() >= 2, () -> String.valueOf(steps[0]));
        JsonNode second = steps[0].get(1);
        return second.path("epochMillis").asLong() + second.path("routerMillis").asDouble();
    }

    private JsonNode sessionSteps(RouterUnderTest router, AgentSession s) {
        try {
            return JSON.readTree(http.get(router.adminUrl() + "/api/sessions/" + s.id()).body()).path("steps");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value of {@code lmw_queue_wait_cause_seconds_total} for one cause and lane, from the Prometheus text. */
    private static double metric(String metrics, String cause, String lane) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith("lmw_queue_wait_cause_seconds_total{") && line.contains("cause=\"" + cause + "\"")
                    && line.contains("lane=\"" + lane + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no lmw_queue_wait_cause_seconds_total for " + cause + ", " + lane + " in /metrics");
    }

    private JsonNode queue(RouterUnderTest router) {
        try {
            return JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("queue");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
