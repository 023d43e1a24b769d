package io.lmwarden.router.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23 over real HTTP against simulated replicas: residency by cost (sessions that pause briefly keep their
 * residency beside sessions that pause long, under pressure) and admission only on evidence (without pressure the
 * default decides exactly as affinity, step for step).
 */
class PausesUnderPressureTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();
    private static final double TIME_SCALE = 20;

    /** One step's answer as the client saw it. */
    private record Step(int status, String replica, String decision, boolean queued, long cachedTokens) {
    }

    private static Step send(RouterUnderTest router, AgentSession session) throws Exception {
        Http.Reply r = HTTP.post(router.url() + "/v1/messages?beta=true", session.nextBody(16, false), session.headers());
        if (r.status() != 200) {
            return new Step(r.status(), r.replica(), r.decision(), false, 0);
        }
        session.append(AgentSession.replyText(r.body()), 800);
        long cached = JSON.readTree(r.body()).path("usage").path("cache_read_input_tokens").asLong(0);
        return new Step(200, r.replica(), r.decision(), r.header("x-lmw-queue-wait-ms") != null, cached);
    }

    /**
     * 8 sessions × 5 steps on 4 replicas with room for all: first steps one after another (so that where a new session
     * goes depends on nothing but the pins), then the rest concurrently. Returns "replica decision" per step, per session.
     */
    private static Map<String, List<String>> run(UnaryOperator<RouterConfig> config) throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(4, SimProfile.defaultProfile(), TIME_SCALE),
                c -> config.apply(c.withTimeScale(TIME_SCALE)))) {
            String system = AgentSession.sharedSystem(4000);
            List<AgentSession> sessions = new ArrayList<>();
            Map<String, List<String>> steps = new ConcurrentHashMap<>();
            for (int s = 0; s < 8; s++) {
                AgentSession session = new AgentSession("same-" + s + "-0a1b2c3d-4e5f", AgentSession.Identity.CLAUDE_CODE_HEADER, system,
                        6000, 700 + s);
                sessions.add(session);
                Step first = send(router, session);
                List<String> mine = new ArrayList<>();
                mine.add(first.replica() + " " + first.decision() + (first.queued() ? " queued" : ""));
                steps.put(session.id(), mine);
                // The engines' load the router reads is fresh again before the next session comes.
                RouterUnderTest.sleep(300);
            }
            ExecutorService pool = Executors.newFixedThreadPool(sessions.size());
            List<Future<?>> running = new ArrayList<>();
            for (AgentSession session : sessions) {
                running.add(pool.submit(() -> {
                    for (int step = 1; step < 5; step++) {
                        Step r = send(router, session);
                        steps.get(session.id()).add(r.replica() + " " + r.decision() + (r.queued() ? " queued" : ""));
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            return new TreeMap<>(steps);
        }
    }

    @Test
    void withoutPressureTheDefaultDecidesExactlyAsAffinityStepForStep() throws Exception {
        Map<String, List<String>> affinity = run(c -> c.with(PlacementSettings.POLICY, "affinity").with(AdmissionSettings.ADMISSION, false));
        Map<String, List<String>> byDefault = run(c -> c);
        assertThat(affinity.values()).allMatch(l -> l.size() == 5);
        assertThat(byDefault).isEqualTo(affinity);
        // The check sees a difference where there is one: a budget that applies always and holds next to nothing.
        Map<String, List<String>> budgeted = run(c -> c.with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS)
                .with(AdmissionSettings.KV_BUDGET, 0.0001));
        assertThat(budgeted).isNotEqualTo(affinity);
    }

    @Test
    void sessionsThatPauseBrieflyKeepTheirResidencyBesideSessionsThatPauseLong() throws Exception {
        // Two replicas whose budgets hold about two of these sessions each; 2 sessions pause 20 ms between steps, 6 pause 1.5 s
        // (30 s of workload time), past the break-even of about 0.4 s: 4 × 0.3 ms per token / 20 × 6,336 tokens. Prefill
        // at four times the reference cost (engines and the router's prior) keeps the short pauses, which are the 20 ms
        // plus the client's own turnaround, well inside the break-even on a loaded machine too: at the reference cost
        // (a 0.1 s break-even) a turnaround stretched by load made short-pausing residents look costly to hold.
        SimProfile small = SimProfile.defaultProfile().withKvBlocks(440).withPrefillCostTimes(4);
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, small, TIME_SCALE),
                c -> c.withTimeScale(TIME_SCALE).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS)
                        .with(PlacementSettings.PREFILL_MS_PER_TOKEN, PlacementSettings.PREFILL_MS_PER_TOKEN.defaultValue() * 4))) {
            String system = AgentSession.sharedSystem(4000);
            Map<String, List<Step>> shortPauses = new ConcurrentHashMap<>();
            Map<String, List<Step>> longPauses = new ConcurrentHashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> running = new ArrayList<>();
            for (int s = 0; s < 8; s++) {
                boolean quick = s < 2;
                AgentSession session = new AgentSession((quick ? "quick-" : "slow-") + s + "-0a1b2c3d-4e5f",
                        AgentSession.Identity.CLAUDE_CODE_HEADER, system, 7000, 900 + s);
                Map<String, List<Step>> into = quick ? shortPauses : longPauses;
                running.add(pool.submit(() -> {
                    List<Step> mine = new ArrayList<>();
                    into.put(session.id(), mine);
                    for (int step = 0; step < (quick ? 14 : 5); step++) {
                        mine.add(send(router, session));
                        RouterUnderTest.sleep(quick ? 20 : 1500);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(180, TimeUnit.SECONDS);
            }
            pool.shutdown();
            JsonNode queue = JSON.readTree(HTTP.get(router.url() + "/api/replicas").body()).path("queue");
            System.out.printf("short pauses: %s%nlong pauses: %s%nqueue: %s%n", shortPauses, longPauses, queue);
            assertThat(shortPauses.values()).allMatch(l -> l.stream().allMatch(st -> st.status() == 200));
            assertThat(longPauses.values()).allMatch(l -> l.stream().allMatch(st -> st.status() == 200));
            // The pool was under pressure: long-pausing residents gave up their residency to others.
            assertThat(queue.path("revokedUnderPressure").asLong()).isPositive();
            // Once a short-pausing session's pauses are known (its own outweigh the pool's), it never waits, never moves, and
            // finds its prefix: it kept its residency through every pause.
            for (List<Step> steps : shortPauses.values()) {
                List<Step> known = steps.subList(8, steps.size());
                assertThat(known).as("%s", steps).noneMatch(Step::queued);
                assertThat(known).as("%s", steps).allMatch(st -> st.replica().equals(steps.get(7).replica()));
                assertThat(known).as("%s", steps).allMatch(st -> st.cachedTokens() > 1500);
            }
        }
    }
}
