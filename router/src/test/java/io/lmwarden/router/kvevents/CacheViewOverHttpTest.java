package io.lmwarden.router.kvevents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.router.config.CacheViewSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engines' cache view wired into the router, over real HTTP and real JeroMQ sockets: simulated replicas publish
 * vLLM's KV events, the router follows them, asks the engines for token ids on the forwarded requests (and takes them
 * out of what the client gets), keys each prompt with them and places by what the engines really hold.
 */
class CacheViewOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    private static final double TIME_SCALE = 10;

    /** One keyless agent session on the chat API: every session starts with the same system prompt and first message. */
    private static final class ChatSession {
        final ArrayNode messages = JSON.createArrayNode();
        final Random random;

        ChatSession(String system, String firstMessage, long seed) {
            random = new Random(seed);
            messages.addObject().put("role", "system").put("content", system);
            messages.addObject().put("role", "user").put("content", firstMessage);
        }

        private String user;

        /** From now on the session names itself with the body's {@code user} field. */
        ChatSession keyed(String key) {
            user = key;
            return this;
        }

        String body(boolean stream) {
            ObjectNode b = JSON.createObjectNode();
            if (user != null) {
                b.put("user", user);
            }
            b.put("model", MODEL);
            b.put("max_tokens", 24);
            b.put("stream", stream);
            if (stream) {
                b.putObject("stream_options").put("include_usage", true);
            }
            b.set("messages", messages.deepCopy());
            return b.toString();
        }

        void append(String reply) {
            messages.addObject().put("role", "assistant").put("content", reply);
            messages.addObject().put("role", "user").put("content", "tool result: " + words(random, 1200));
        }
    }

    @Test
    void keylessSessionsSharingAFirstMessageArePredictedByTheEnginesOwnEvents() throws Exception {
        try (SimPool sims = SimPool.startWithKvEvents(SimProfile.named("a4000-qwen3-4b"), TIME_SCALE, true, true, true, true);
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.POLICY, "cost").withTimeScale(TIME_SCALE))) {
            Http http = new Http();
            awaitEveryView(http, router, "events", Duration.ofSeconds(20));
            String system = words(new Random(7), 3000);
            String first = words(new Random(11), 6000);
            int sessions = 6;
            int steps = 5;
            ExecutorService pool = Executors.newFixedThreadPool(sessions);
            List<String> problems = Collections.synchronizedList(new ArrayList<>());
            Set<String> firstReplicas = Collections.synchronizedSet(new HashSet<>());
            List<Future<?>> running = new ArrayList<>();
            for (int s = 0; s < sessions; s++) {
                ChatSession session = new ChatSession(system, first, 100 + s);
                running.add(pool.submit(() -> {
                    for (int step = 0; step < steps; step++) {
                        boolean stream = step % 2 == 1;
                        String reply;
                        if (stream) {
                            List<String> lines = http.streamLines(router.url() + "/v1/chat/completions", session.body(true), Map.of());
                            StringBuilder text = new StringBuilder();
                            for (String l : lines) {
                                if (l.contains("token_ids")) {
                                    problems.add("token ids reached the client: " + l.substring(0, Math.min(120, l.length())));
                                }
                                if (l.startsWith("data: {")) {
                                    text.append(JSON.readTree(l.substring(6)).path("choices").path(0).path("delta").path("content").asText(""));
                                }
                            }
                            reply = text.toString();
                        } else {
                            Http.Reply r = http.post(router.url() + "/v1/chat/completions", session.body(false), Map.of());
                            assertThat(r.status()).as(r.body()).isEqualTo(200);
                            JsonNode body = JSON.readTree(r.body());
                            if (body.has("prompt_token_ids") || body.path("choices").path(0).has("token_ids")) {
                                problems.add("token ids reached the client in a JSON body");
                            }
                            reply = body.path("choices").path(0).path("message").path("content").asText();
                            if (step == 0) {
                                firstReplicas.add(r.replica());
                            }
                        }
                        session.append(reply);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(problems).isEmpty();

            List<long[]> compared = new ArrayList<>(); // {expected, reported, prompt}
            JsonNode arrivals = JSON.readTree(http.get(router.adminUrl() + "/api/sessions").body()).path("arrivals");
            for (JsonNode a : arrivals) {
                JsonNode detail = JSON.readTree(http.get(router.adminUrl() + "/api/sessions/" + a.path("hash").asText()).body());
                for (JsonNode st : detail.path("steps")) {
                    compared.add(new long[] {st.path("expectedCachedTokens").asLong(), st.path("cachedTokens").asLong(),
                            st.path("promptTokens").asLong()});
                }
            }
            int total = compared.size();
            long within = compared.stream().filter(c -> c[1] >= 0 && Math.abs(c[0] - c[1]) <= Math.max(16, 0.05 * c[2])).count();
            long warm = compared.stream().filter(c -> c[1] > 0).count();
            System.out.printf("steps %d, predicted within 5 %% (or one block) of the engine's cached_tokens: %d, steps with hits: %d%n",
                    total, within, warm);
            compared.forEach(c -> System.out.println("  expected " + c[0] + " reported " + c[1] + " of " + c[2]));
            assertThat(total).isEqualTo(sessions * steps);
            // Every step's prediction, the sessions' first steps included (the shared beginning is keyed once the first
            // of them ended), but for first steps that ran before any had ended: at most one per replica used.
            assertThat(within).as("steps predicted within 5 %").isGreaterThanOrEqualTo(total - sessions);
            assertThat(warm).as("steps that hit the cache").isGreaterThanOrEqualTo((long) sessions * (steps - 1));
        }
    }

    /**
     * An engine whose cache was reset ({@code POST /reset_prefix_cache}: {@code AllBlocksCleared}) or whose process
     * restarted (its publisher starts over at sequence 0) is known cold at once, and the session that lived there is
     * not expected to hit there any more.
     */
    @Test
    void aClearedOrRestartedReplicaIsKnownCold() throws Exception {
        try (SimPool sims = SimPool.startWithKvEvents(SimProfile.named("a4000-qwen3-4b"), TIME_SCALE, true, true);
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.POLICY, "cost").withTimeScale(TIME_SCALE))) {
            Http http = new Http();
            awaitEveryView(http, router, "events", Duration.ofSeconds(20));
            ChatSession session = new ChatSession(words(new Random(3), 2000), words(new Random(4), 4000), 5);
            String home = null;
            for (int step = 0; step < 3; step++) {
                Http.Reply r = http.post(router.url() + "/v1/chat/completions", session.keyed("cold-1").body(false), Map.of());
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                home = r.replica();
                session.append(JSON.readTree(r.body()).path("choices").path(0).path("message").path("content").asText());
            }
            int index = Integer.parseInt(home.substring("sim-".length()));
            assertThat(kvEvents(http, router, home).path("gpuBlocks").asLong()).isPositive();

            long resetAt = System.nanoTime();
            assertThat(http.post(sims.url(index) + "/reset_prefix_cache", "", Map.of()).status()).isEqualTo(200);
            long coldAfterMs = awaitCold(http, router, home, resetAt);
            System.out.println("cleared replica known cold after " + coldAfterMs + " ms");
            Http.Reply next = http.post(router.url() + "/v1/chat/completions", session.keyed("cold-1").body(false), Map.of());
            assertThat(next.status()).isEqualTo(200);
            JsonNode last = lastStep(http, router, "cold-1");
            assertThat(last.path("expectedCachedTokens").asLong()).as("nothing expected where the engine holds nothing")
                    .isLessThanOrEqualTo(last.path("cachedTokens").asLong());
            assertThat(last.path("cachedTokens").asLong()).isZero();
            session.append(JSON.readTree(next.body()).path("choices").path(0).path("message").path("content").asText());

            // Warm again there, then the simulator restarts on its ports: a publisher starting over is a cold engine.
            Http.Reply warm = http.post(router.url() + "/v1/chat/completions", session.keyed("cold-1").body(false), Map.of());
            home = warm.replica();
            index = Integer.parseInt(home.substring("sim-".length()));
            assertThat(kvEvents(http, router, home).path("gpuBlocks").asLong()).isPositive();
            long restartAt = System.nanoTime();
            sims.restart(index, List.of(MODEL));
            long backAt = System.nanoTime();
            long restartColdMs = awaitCold(http, router, home, restartAt);
            // Both clocks: from the kill (the restart itself included) and from the new engine listening again.
            System.out.println("restarted replica known cold after " + restartColdMs + " ms from its restart, "
                    + Math.max(0, restartColdMs - (backAt - restartAt) / 1_000_000) + " ms after it was back");
        }
    }

    /**
     * A replica listed with a publisher that never answers goes stale after {@code kvEventsStaleAfter}: its row says
     * {@code estimated} and stale, {@code lmw_kv_view_stale} is 1, and placement expects what the router's own index
     * says it holds there, as without events.
     */
    @Test
    void aReplicaWithoutEventsFallsBackToTheEstimates() throws Exception {
        try (SimPool sims = SimPool.startWithKvEvents(SimProfile.named("a4000-qwen3-4b"), TIME_SCALE, true, false);
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.POLICY, "cost").withTimeScale(TIME_SCALE)
                     .with(CacheViewSettings.KV_EVENTS_STALE_AFTER, Duration.ofMillis(500)))) {
            Http http = new Http();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            JsonNode silent = null;
            while (System.nanoTime() < deadline) {
                silent = row(http, router, "sim-1");
                if (silent.path("cacheViewStale").asBoolean() && "events".equals(row(http, router, "sim-0").path("cacheView").asText())) {
                    break;
                }
                Thread.sleep(50);
            }
            assertThat(silent.path("cacheView").asText()).isEqualTo("estimated");
            assertThat(silent.path("cacheViewStale").asBoolean()).isTrue();
            assertThat(silent.path("kvEvents").path("state").asText()).isEqualTo("stale");
            assertThat(http.get(router.adminUrl() + "/metrics").body()).contains("lmw_kv_view_stale{replica=\"sim-1\"} 1.0");

            ChatSession session = new ChatSession(words(new Random(8), 2000), words(new Random(9), 4000), 6);
            for (int step = 0; step < 2; step++) {
                Http.Reply r = http.post(router.url() + "/v1/chat/completions", session.keyed("stale-1").body(false),
                        Map.of("X-LMW-Replica", "sim-1"));
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                assertThat(r.replica()).isEqualTo("sim-1");
                session.append(JSON.readTree(r.body()).path("choices").path(0).path("message").path("content").asText());
            }
            JsonNode last = lastStep(http, router, "stale-1");
            assertThat(last.path("expectedCachedTokens").asLong()).as("the router's own estimate, as without events").isPositive();
        }
    }

    /**
     * A session whose blocks the engine evicted (another session needed the room) comes back: its step says when the
     * first block it missed left the GPU, and expects only what is still there.
     */
    @Test
    void aStepAfterAnEvictionSaysWhenItsPrefixWasEvicted() throws Exception {
        // 260 blocks of 16 tokens: room for one of these sessions at a time.
        SimProfile small = SimProfile.named("a4000-qwen3-4b").withKvBlocks(260);
        // The view is never let go stale here (a loaded machine can hold a 11k-token prefill's first event past the
        // 10 s default): the step must be judged from the events, and staleness has its own test above.
        try (SimPool sims = SimPool.startWithKvEvents(small, TIME_SCALE, true);
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.POLICY, "cost").withTimeScale(TIME_SCALE)
                     .with(CacheViewSettings.KV_EVENTS_STALE_AFTER, Duration.ofMinutes(10)))) {
            Http http = new Http();
            awaitEveryView(http, router, "events", Duration.ofSeconds(20));
            ChatSession a = new ChatSession(words(new Random(21), 3000), words(new Random(22), 8000), 23).keyed("evict-a");
            ChatSession b = new ChatSession(words(new Random(31), 3000), words(new Random(32), 8000), 33).keyed("evict-b");
            long before = System.currentTimeMillis();
            a.append(JSON.readTree(http.post(router.url() + "/v1/chat/completions", a.body(false), Map.of()).body())
                    .path("choices").path(0).path("message").path("content").asText());
            http.post(router.url() + "/v1/chat/completions", b.body(false), Map.of());
            Http.Reply again = http.post(router.url() + "/v1/chat/completions", a.body(false), Map.of());
            assertThat(again.status()).isEqualTo(200);
            JsonNode last = lastStep(http, router, "evict-a");
            System.out.println("returning step: " + last);
            assertThat(last.path("expectedFrom").asText()).isEqualTo("events");
            assertThat(last.path("prefixEvictedAtMillis").asLong()).as("when its prefix left the GPU")
                    .isBetween(before, System.currentTimeMillis());
            assertThat(last.path("expectedCachedTokens").asLong()).isLessThanOrEqualTo(last.path("cachedTokens").asLong() + 16);
        }
    }

    private static long awaitCold(Http http, RouterUnderTest router, String replica, long sinceNanos) throws Exception {
        long sinceMillis = System.currentTimeMillis() - (System.nanoTime() - sinceNanos) / 1_000_000;
        long deadline = sinceNanos + io.lmwarden.router.testing.Await.HANG_GUARD.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode k = kvEvents(http, router, replica);
            if (k.path("gpuBlocks").asLong() == 0 && k.path("clearedAtMillis").asLong() >= sinceMillis - 5) {
                return (System.nanoTime() - sinceNanos) / 1_000_000;
            }
            Thread.sleep(10);
        }
        throw new AssertionError(replica + " not known cold within " + io.lmwarden.router.testing.Await.HANG_GUARD.toSeconds() + " s: " + kvEvents(http, router, replica));
    }

    private static JsonNode lastStep(Http http, RouterUnderTest router, String key) throws Exception {
        JsonNode steps = JSON.readTree(http.get(router.adminUrl() + "/api/sessions/" + key).body()).path("steps");
        return steps.get(steps.size() - 1);
    }

    private static JsonNode row(Http http, RouterUnderTest router, String replica) throws Exception {
        for (JsonNode r : JSON.readTree(http.get(router.adminUrl() + "/api/replicas").body()).path("replicas")) {
            if (r.path("id").asText().equals(replica)) {
                return r;
            }
        }
        throw new AssertionError("no replica " + replica);
    }

    private static JsonNode kvEvents(Http http, RouterUnderTest router, String replica) throws Exception {
        return row(http, router, replica).path("kvEvents");
    }

    private static void awaitEveryView(Http http, RouterUnderTest router, String view, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        JsonNode replicas = null;
        while (System.nanoTime() < deadline) {
            replicas = JSON.readTree(http.get(router.adminUrl() + "/api/replicas").body()).path("replicas");
            boolean all = replicas.size() > 0;
            for (JsonNode r : replicas) {
                all &= view.equals(r.path("cacheView").asText());
            }
            if (all) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("not every replica's cache view is '" + view + "' within " + within + ": " + replicas);
    }

    static String words(Random r, int chars) {
        StringBuilder sb = new StringBuilder(chars + 16);
        String[] vocab = {"alpha", "beta", "gamma", "delta", "kernel", "cache", "token", "replica", "session", "router"};
        while (sb.length() < chars) {
            sb.append(vocab[r.nextInt(vocab.length)]).append(r.nextInt(1000)).append(' ');
        }
        return sb.toString();
    }
}
