package io.lmwarden.router.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission's evidence with a host KV tier, over real HTTP against two simulated replicas whose GPU cache holds about two
 * of the sessions' working sets each, twelve sessions (six per replica) of back-to-back steps. vLLM counts the tokens it
 * loads from the tier as cached, so the evidence cannot take {@code cached_tokens} at its word: a step's tier-loaded
 * tokens count at their load cost, and what neither tier held as a recompute.
 * <ul>
 *   <li>a tier too small for the sessions' working sets (1.6× the GPU cache, against six sessions of 5,500+ tokens per
 *       replica): returns recompute much of their own prefix however much of its start the GPU and the tier kept, and
 *       admission engages on that evidence;</li>
 *   <li>an ample tier (8× the GPU cache, all working sets): every return loads its prefix from the tier, cheaply, and
 *       admission does not engage.</li>
 * </ul>
 */
class TierThrashEvidenceTest {
    // The sessions step back to back: their pauses are the clients' turnaround, well inside the break-even, so every
    // return home is evidence (holdingPays), as in AdmissionSaturationTest whose setup this copies.

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double TIME_SCALE = 20;
    private static final int SESSIONS = 12;
    private static final int STEPS = 6;
    /** As AdmissionSaturationTest: prefill at 4× the reference cost, so that the break-even outlasts a loaded machine's turnaround. */
    private static final double PREFILL_FACTOR = 4;
    /** 440 blocks × 16 = 7,040 tokens of GPU KV: the shared ~3,000-token system prompt and about one session's own part. */
    private static final int KV_BLOCKS = 440;
    /** Large contexts: a shared system prompt of ~3,000 tokens and a first turn of ~2,500, growing each step. */
    private static final int SYSTEM_CHARS = 12_000;
    private static final int FIRST_TURN_CHARS = 10_000;
    private static final SimProfile REPLICA = SimProfile.defaultProfile().withKvBlocks(KV_BLOCKS).withPrefillCostTimes(PREFILL_FACTOR);

    /** A tier of {@code timesGpu} GPU caches, in GiB: 440 blocks × 16 tokens × the profile's KV bytes per token. */
    private static double tierGib(double timesGpu) {
        return timesGpu * KV_BLOCKS * 16 * (double) REPLICA.kvBytesPerToken() / (1L << 30);
    }

    private record Run(JsonNode thrash, boolean engaged, long promptTokens, long cachedTokens, long externalHits) {
    }

    @Test
    void aTierTooSmallForTheWorkingSetsEngagesAdmissionAndAnAmpleOneDoesNot() throws Exception {
        Run small = run(tierGib(1.6), "small");
        Run ample = run(tierGib(8), "ample");
        System.out.printf("tier too small: engaged %s, evidence %s, cached %d of %d (tier %d); ample tier: engaged %s, evidence %s, cached %d of %d (tier %d)%n",
                small.engaged(), small.thrash(), small.cachedTokens(), small.promptTokens(), small.externalHits(),
                ample.engaged(), ample.thrash(), ample.cachedTokens(), ample.promptTokens(), ample.externalHits());
        assertThat(small.externalHits()).as("the small tier served some loads").isPositive();
        assertThat(ample.externalHits()).as("the ample tier served the returns").isPositive();
        assertThat(small.thrash().path("engagedTimes").asInt()).as("admission engaged on evidence with a tier too small: %s", small.thrash())
                .isPositive();
        assertThat(ample.thrash().path("engagedTimes").asInt()).as("admission never engaged with an ample tier: %s", ample.thrash())
                .isZero();
        assertThat(ample.thrash().path("evidenceSteps").asInt()).as("the ample run had evidence to decide on").isGreaterThanOrEqualTo(8);
    }

    private Run run(double tierGib, String prefix) throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, REPLICA.withKvOffloadGib(tierGib), TIME_SCALE),
                c -> c.with(PlacementSettings.POLICY, "affinity").with(AdmissionSettings.ADMISSION, true)
                        .with(PlacementSettings.PREFILL_MS_PER_TOKEN, PlacementSettings.PREFILL_MS_PER_TOKEN.defaultValue() * PREFILL_FACTOR)
                        .with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_EVIDENCE).withTimeScale(TIME_SCALE)
                        .with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofMinutes(30)))) {
            Http http = new Http();
            String system = AgentSession.sharedSystem(SYSTEM_CHARS);
            ExecutorService pool = Executors.newFixedThreadPool(SESSIONS);
            List<Future<long[]>> running = new ArrayList<>();
            for (int s = 0; s < SESSIONS; s++) {
                AgentSession session = new AgentSession(prefix + "-" + s + "-7135-e1de", AgentSession.Identity.CLAUDE_CODE_HEADER, system,
                        FIRST_TURN_CHARS, 300 + s);
                running.add(pool.submit(() -> {
                    long prompt = 0;
                    long cached = 0;
                    for (int step = 0; step < STEPS; step++) {
                        Http.Reply r = http.post(router.url() + "/v1/messages", session.nextBody(16, false), session.headers());
                        assertThat(r.status()).as("%s step %d: %s", session, step, r.body()).isEqualTo(200);
                        JsonNode usage = JSON.readTree(r.body()).path("usage");
                        cached += usage.path("cache_read_input_tokens").asLong(0);
                        prompt += usage.path("input_tokens").asLong(0) + usage.path("cache_read_input_tokens").asLong(0);
                        session.append(AgentSession.replyText(r.body()), 800);
                    }
                    return new long[] {prompt, cached};
                }));
            }
            long prompt = 0;
            long cached = 0;
            for (Future<long[]> f : running) {
                long[] pc = f.get(180, TimeUnit.SECONDS);
                prompt += pc[0];
                cached += pc[1];
            }
            pool.shutdown();
            JsonNode replicas = JSON.readTree(http.get(router.url() + "/api/replicas").body());
            long external = 0;
            for (int i = 0; i < 2; i++) {
                for (EngineSnapshot e : router.sims().engines(i)) {
                    external += e.externalPrefixHits();
                }
            }
            JsonNode thrash = replicas.path("queue").path("thrash");
            return new Run(thrash, thrash.path("engaged").asBoolean(), prompt, cached, external);
        }
    }
}
