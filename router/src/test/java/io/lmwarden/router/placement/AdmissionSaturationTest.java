package io.lmwarden.router.placement;

import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.AdmissionSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Saturation over real HTTP: 2 simulated replicas whose KV cache holds about 2 sessions each, 12
 * sessions (6 per replica) of 6 back-to-back steps. Without admission the sessions evict each other;
 * with it newcomers wait in the router's queue, every request succeeds, and the engines' hit rate stays
 * near what perfect caching could give.
 */
class AdmissionSaturationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TIME_SCALE = 20;
    private static final int SESSIONS = 12;
    private static final int STEPS = 6;
    /**
     * Prefill this many times the reference replica's cost, in the engines and in the router's prior: the break-even
     * (holding a session's KV pays while its pause is shorter than the prefill of the whole budget) grows with it, to
     * about 0.4 s of wall time at this time scale. The sessions step back to back, so their pauses are the clients'
     * own turnaround, which a loaded machine stretches to 100-300 ms of wall time: against the reference cost's
     * 0.1 s break-even, admission then rightly let residents go (engaged on evidence, it did not engage at all), and
     * what this test checks depended on the machine's load, not on the router.
     */
    private static final double PREFILL_FACTOR = 4;
    /** 440 blocks × 16 = 7,040 tokens: a shared ~1,000-token system prompt plus two sessions of up to ~2,900 tokens. */
    private static final SimProfile TWO_SESSIONS_PER_REPLICA = SimProfile.defaultProfile().withKvBlocks(440).withPrefillCostTimes(PREFILL_FACTOR);

    /** Per request: prompt tokens, tokens the engine served from cache, what perfect caching could have served. */
    private record Step(int status, long promptTokens, long cachedTokens, long oracleTokens, long queueWaitMs) {
    }

    private record Run(List<Step> steps, long engineQueries, long engineHits) {
        double hitRate() {
            return (double) engineHits / engineQueries;
        }

        double oracleRate() {
            return (double) steps.stream().mapToLong(Step::oracleTokens).sum() / steps.stream().mapToLong(Step::promptTokens).sum();
        }
    }

    @Test
    void admissionKeepsTheHitRateNearTheOracleWhileQueuedRequestsWaitThenSucceed() throws Exception {
        Run without = run(false, AdmissionSettings.ENGAGE_ALWAYS, "plain");
        Run with = run(true, AdmissionSettings.ENGAGE_ALWAYS, "admitted");
        // The default engages on evidence: the first round of steps thrashes as without admission, the rest does not.
        Run onEvidence = run(true, AdmissionSettings.ENGAGE_EVIDENCE, "evidence");
        System.out.printf("saturated pool: hit rate without admission %.3f, with %.3f, engaged on evidence %.3f; oracle %.3f / %.3f; "
                        + "queued %d of %d%n", without.hitRate(), with.hitRate(), onEvidence.hitRate(), without.oracleRate(), with.oracleRate(),
                with.steps().stream().filter(s -> s.queueWaitMs() > 0).count(), with.steps().size());
        assertThat(onEvidence.steps()).hasSize(SESSIONS * STEPS).allMatch(s -> s.status() == 200);
        assertThat(onEvidence.hitRate()).isGreaterThan(without.hitRate() + 0.10);

        assertThat(with.steps()).hasSize(SESSIONS * STEPS).allMatch(s -> s.status() == 200);
        assertThat(without.steps()).hasSize(SESSIONS * STEPS).allMatch(s -> s.status() == 200);
        // Newcomers had to wait for room, and got it.
        assertThat(with.steps().stream().filter(s -> s.queueWaitMs() > 0).count()).isGreaterThanOrEqualTo(SESSIONS / 2);
        assertThat(without.steps()).allMatch(s -> s.queueWaitMs() == 0);
        // Near the oracle, far from thrashing. How near depends on the machine: residency learns the sessions' pauses in
        // workload time, which a loaded machine stretches twentyfold here, so more newcomers queue (18-26 of 72 seen,
        // hit rate 0.77-0.70 against an oracle of 0.805). The figure itself is the bench's to measure; this bound only
        // has to tell admission from thrashing (0.33 without it).
        assertThat(with.hitRate()).isGreaterThan(with.oracleRate() - 0.15).isGreaterThan(without.hitRate() + 0.25);
        assertThat(without.hitRate()).isLessThan(without.oracleRate() - 0.15);
    }

    private Run run(boolean admission, String engage, String prefix) throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, TWO_SESSIONS_PER_REPLICA, TIME_SCALE),
                c -> c.with(PlacementSettings.POLICY, "affinity").with(AdmissionSettings.ADMISSION, admission)
                        .with(PlacementSettings.PREFILL_MS_PER_TOKEN, PlacementSettings.PREFILL_MS_PER_TOKEN.defaultValue() * PREFILL_FACTOR)
                        .with(AdmissionSettings.ENGAGE, engage).withTimeScale(TIME_SCALE).with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofMinutes(30)))) {
            Http http = new Http();
            String system = AgentSession.sharedSystem(4000);
            long[] before = router.sims().prefixCounters();
            List<Step> steps = Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
            List<Future<?>> running = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                AgentSession session = new AgentSession(prefix + "-" + s + "-5e55-10ff", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 6000, 300 + s);
                running.add(pool.submit(() -> {
                    long previousPromptAndReply = -1;
                    for (int step = 0; step < STEPS; step++) {
                        Http.Reply r = http.post(router.url() + "/v1/messages", session.nextBody(16, false), session.headers());
                        String wait = r.header("x-lmw-queue-wait-ms");
                        if (r.status() != 200) {
                            steps.add(new Step(r.status(), 0, 0, 0, 0));
                            break;
                        }
                        JsonNode usage = JSON.readTree(r.body()).path("usage");
                        long cached = usage.path("cache_read_input_tokens").asLong(0);
                        long prompt = usage.path("input_tokens").asLong(0) + cached;
                        long output = usage.path("output_tokens").asLong(0);
                        // Perfect caching serves the previous prompt and reply in whole 16-token blocks (never the last token).
                        long oracle = previousPromptAndReply < 0 ? 0 : Math.min(prompt - 1, previousPromptAndReply) / 16 * 16;
                        steps.add(new Step(200, prompt, cached, oracle, wait == null ? 0 : Long.parseLong(wait)));
                        previousPromptAndReply = prompt + output;
                        session.append(AgentSession.replyText(r.body()), 800);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(180, TimeUnit.SECONDS);
            }
            pool.shutdown();
            long[] after = router.sims().prefixCounters();
            return new Run(steps, after[0] - before[0], after[1] - before[1]);
        }
    }
}
