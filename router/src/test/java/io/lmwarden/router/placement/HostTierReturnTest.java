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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 24 over HTTP against two simulated replicas of 4,096 KV tokens each. Four sessions take a step (two per
 * replica) and pause six times their usual pause; one long newcomer per replica then takes their room in its KV budget
 * (admission always engaged) and, on the GPU, evicts most of the paused sessions' blocks. The paused sessions come back all at once:
 * <ul>
 *   <li>with a host-memory KV tier of 5× the GPU cache, each goes home at once (STICKY, no queue wait), the engine
 *       loads its blocks from the tier (external prefix-cache hits, reported as cached tokens), and
 *       {@code /api/replicas} and {@code /metrics} show both tiers;</li>
 *   <li>without a tier, the same sessions find no room in any budget and wait in the queue (what the tier changes).</li>
 * </ul>
 */
class HostTierReturnTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();
    /** 256 blocks × 16 = 4,096 tokens of GPU KV; 20 ms steps so that a 200-token reply holds its replica for ~4 s. */
    private static final SimProfile SMALL = SimProfile.named(SimProfile.TINY).withCosts(20, 0.02, 0.1, 0.05, 0);
    /** Five times the GPU cache: 4,096 tokens × 147,456 B × 5 = 2.81 GiB. */
    private static final double TIER_GIB = 5 * 4096 * 147_456.0 / (1L << 30);
    private static final List<String> PAUSED = List.of("paused-a", "paused-b", "paused-c", "paused-d");

    /** ~{@code tokens} tokens of text of its own (the simulator counts ~4 characters per token). */
    private static String text(String session, int tokens) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (sb.length() < tokens * 4) {
            sb.append(session).append(' ').append(i++).append(' ');
        }
        return sb.toString();
    }

    private static String chat(String session, int maxTokens, String... turns) {
        StringBuilder messages = new StringBuilder();
        for (int i = 0; i < turns.length; i++) {
            messages.append(i == 0 ? "" : ",").append("{\"role\":\"").append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"").append(turns[i]).append("\"}");
        }
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":" + maxTokens + ",\"messages\":[" + messages + "]}";
    }

    private static Http.Reply send(RouterUnderTest router, String session, String body) {
        return HTTP.post(router.url() + "/v1/chat/completions", body, Map.of("X-Session-Id", session));
    }

    private static JsonNode replicas(RouterUnderTest router) throws Exception {
        return JSON.readTree(HTTP.get(router.url() + "/api/replicas").body());
    }

    private static double recentHostHits(JsonNode replicas) {
        double hits = 0;
        for (JsonNode row : replicas.path("replicas")) {
            hits += row.path("recent").path("hostTierHits").asDouble();
        }
        return hits;
    }

    private static JsonNode await(RouterUnderTest router, String what, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode r = replicas(router);
        while (!until.test(r)) {
            assertThat(System.nanoTime()).as("waiting for %s; last /api/replicas: %s", what, r).isLessThan(deadline);
            RouterUnderTest.sleep(20);
            r = replicas(router);
        }
        return r;
    }

    private static int residents(JsonNode replicas) {
        int n = 0;
        for (JsonNode r : replicas.path("replicas")) {
            n += r.path("residentSessions").asInt();
        }
        return n;
    }

    private static long externalHits(SimPool sims) {
        long sum = 0;
        for (int i = 0; i < 2; i++) {
            for (EngineSnapshot e : sims.engines(i)) {
                sum += e.externalPrefixHits();
            }
        }
        return sum;
    }

    /** What the paused sessions' return looked like. */
    private record Returned(List<Http.Reply> steps, List<String> homes, List<String> firstPrompts, JsonNode replicas, long externalHitsBefore,
                            long externalHitsAfter, String metrics) {
    }

    private static Returned pauseEvictAndReturn(double tierGib) throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SMALL.withKvOffloadGib(tierGib), 1),
                c -> c.with(PlacementSettings.POLICY, "affinity").with(AdmissionSettings.ADMISSION, true)
                        .with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS)
                        .with(AdmissionSettings.RESIDENCY_IDLE, Duration.ofMillis(500))
                        .with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofSeconds(120)))) {
            // Step 1 of the four paused sessions, ~1,000 tokens each, two per replica.
            List<String> homes = new ArrayList<>();
            List<String> firstPrompts = new ArrayList<>();
            for (String s : PAUSED) {
                String prompt = text(s, 1000);
                Http.Reply r = send(router, s, chat(s, 16, prompt));
                assertThat(r.status()).as("%s step 1: %s", s, r.body()).isEqualTo(200);
                homes.add(r.replica());
                firstPrompts.add(prompt);
            }
            assertThat(homes).as("two sessions per replica").containsExactlyInAnyOrder("sim-0", "sim-0", "sim-1", "sim-1");
            // They pause for six times their usual pause (the prior's median, residencyIdle): residents still, but on an
            // idle replica a newcomer that needs their room takes it (residency by cost: none of them is likely back soon).
            RouterUnderTest.sleep(3000);

            // One newcomer per replica: ~3,300 tokens plus a 200-token reply fill its KV budget (0.9 × 4,096) and evict
            // most of the paused sessions' blocks on the GPU while it runs. Without a tier they take the paused sessions'
            // room; with one, the budget counts the tier (up to 2x the GPU) and all fit.
            List<CompletableFuture<Http.Reply>> newcomers = new ArrayList<>();
            for (String s : List.of("newcomer-x", "newcomer-y")) {
                newcomers.add(CompletableFuture.supplyAsync(() -> send(router, s, chat(s, 200, text(s, 3300)))));
            }
            await(router, "the newcomers admitted", r -> r.path("queue").path("admittedAtOnce").asInt()
                    + r.path("queue").path("admittedFromQueue").asInt() == PAUSED.size() + newcomers.size());
            long hitsBefore = externalHits(router.sims());

            // The paused sessions come back at once, each with its previous prompt, the reply and a new turn.
            List<CompletableFuture<Http.Reply>> returns = new ArrayList<>();
            for (int i = 0; i < PAUSED.size(); i++) {
                String s = PAUSED.get(i);
                String body = chat(s, 16, firstPrompts.get(i), "ok", "and now the next step of " + s);
                returns.add(CompletableFuture.supplyAsync(() -> send(router, s, body)));
            }
            List<Http.Reply> steps = new ArrayList<>();
            for (CompletableFuture<Http.Reply> f : returns) {
                steps.add(f.get(120, TimeUnit.SECONDS));
            }
            for (CompletableFuture<Http.Reply> f : newcomers) {
                assertThat(f.get(120, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            // The recent window's tier hits appear once the loads were scraped and sampled (each about once a second).
            JsonNode after = await(router, "the host tiers' hits in the recent window", rows -> tierGib == 0 || recentHostHits(rows) > 0);
            return new Returned(steps, homes, firstPrompts, after, hitsBefore, externalHits(router.sims()),
                    HTTP.get(router.url() + "/metrics").body());
        }
    }

    @Test
    void withAHostTierPausedSessionsWhoseGpuBlocksWereEvictedGoHomeAtOnce() throws Exception {
        Returned r = pauseEvictAndReturn(TIER_GIB);
        for (int i = 0; i < PAUSED.size(); i++) {
            Http.Reply step = r.steps().get(i);
            assertThat(step.status()).as("%s step 2: %s", PAUSED.get(i), step.body()).isEqualTo(200);
            assertThat(step.replica()).as("%s goes home", PAUSED.get(i)).isEqualTo(r.homes().get(i));
            assertThat(step.decision()).as(PAUSED.get(i)).isEqualTo("STICKY");
            assertThat(step.header("X-LMW-Queue-Wait-Ms")).as("%s is not queued", PAUSED.get(i)).isNull();
            // The engine reports local and loaded tokens as cached: nearly all of step 1's ~1,000-token prompt.
            int cached = JSON.readTree(step.body()).path("usage").path("prompt_tokens_details").path("cached_tokens").asInt();
            assertThat(cached).as("%s cached tokens", PAUSED.get(i)).isGreaterThanOrEqualTo(900);
        }
        assertThat(r.externalHitsAfter() - r.externalHitsBefore()).as("tokens loaded from the host tiers on the return").isPositive();
        assertThat(r.replicas().path("queue").path("queued").asInt()).as("nothing queued: %s", r.replicas().path("queue")).isZero();

        for (JsonNode row : r.replicas().path("replicas")) {
            JsonNode tier = row.path("hostTier");
            assertThat(tier.isObject()).as("%s hostTier", row.path("id")).isTrue();
            assertThat(tier.path("sizeGib").asDouble()).isCloseTo(TIER_GIB, org.assertj.core.api.Assertions.within(0.01));
            // The tier's GiB over the KV bytes per token loads taught (the simulator's 147,456): 5 × 4,096 tokens.
            assertThat(tier.path("capacityTokens").asLong()).isBetween(20_400L, 20_480L);
            assertThat(row.path("prefixHitRate").isNumber()).isTrue();
            // The budget covers what the tier keeps: 0.9 of the larger tier.
            assertThat(row.path("kvBudgetTokens").asLong()).isGreaterThan(4096);
        }
        long hitTokens = 0;
        for (JsonNode row : r.replicas().path("replicas")) {
            hitTokens += row.path("hostTier").path("hitTokens").asLong();
        }
        assertThat(hitTokens).as("host-tier hits in /api/replicas (its last scrape)").isPositive().isLessThanOrEqualTo(r.externalHitsAfter());
        assertThat(recentHostHits(r.replicas())).as("host-tier hits of the recent window").isPositive().isLessThanOrEqualTo(hitTokens);
        assertThat(r.replicas().path("replicas")).anySatisfy(row ->
                assertThat(row.path("recent").path("hostTierHitRate").asDouble()).isGreaterThan(0).isLessThanOrEqualTo(1));
        assertThat(r.metrics()).contains("lmw_host_tier_capacity_tokens{replica=\"sim-0\"}", "lmw_host_tier_capacity_tokens{replica=\"sim-1\"}",
                "lmw_host_tier_load_bytes_per_second{replica=\"sim-0\"}", "lmw_host_tier_hit_ratio{replica=\"sim-1\"}");
    }

    @Test
    void withoutATierTheSamePausedSessionsWaitForRoom() throws Exception {
        Returned r = pauseEvictAndReturn(0);
        long waited = r.steps().stream().filter(s -> s.header("X-LMW-Queue-Wait-Ms") != null).count();
        assertThat(waited).as("returning sessions that waited in the queue").isPositive();
        assertThat(r.steps()).allSatisfy(s -> assertThat(s.status()).isEqualTo(200));
        for (JsonNode row : r.replicas().path("replicas")) {
            assertThat(row.path("hostTier").isNull()).as("no hostTier without a tier: %s", row).isTrue();
            assertThat(row.path("recent").path("hostTierHitRate").isNull()).as("no recent tier rate without a tier").isTrue();
            assertThat(row.path("kvBudgetTokens").asLong()).isLessThanOrEqualTo(4096);
        }
        assertThat(r.metrics()).doesNotContain("lmw_host_tier_capacity_tokens{");
    }
}
