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

        String body(boolean stream) {
            ObjectNode b = JSON.createObjectNode();
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
