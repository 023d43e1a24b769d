package io.lmwarden.router.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.CacheViewSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.ConcurrentSessions;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.lora.LoraModules;
import io.lmwarden.sim.lora.LoraOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 36, model identity: a LoRA adapter listed in {@code /v1/models} (a card whose {@code parent} is the base model)
 * is a model of its own for the router. Over real HTTP with simulated replicas that serve different adapters
 * (vLLM's {@code --lora-modules}): concurrent sessions on three adapters go only to replicas that list theirs and stay
 * there, and a session on one adapter gets no predicted prefix hit from another adapter's identical prefix (the engine,
 * which keys its blocks by adapter, has none to give), while its own next steps are predicted as before.
 */
class LoraAdapterSessionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static LoraOptions adapters(String... names) {
        List<String> modules = new ArrayList<>();
        for (String n : names) {
            modules.add(n + "=/adapters/" + n);
        }
        return LoraOptions.of(LoraModules.parse(modules), 2, 4, 16, false);
    }

    @Test
    void adapterSessionsGoWhereTheirAdapterIsStayAndGetNoPredictedHitFromAnotherAdaptersPrefix() throws Exception {
        // sim-0 serves alpha and beta, sim-1 alpha and gamma, sim-2 gamma.
        SimPool sims = SimPool.startWithLora(SimProfile.defaultProfile(), 20,
                List.of(adapters("alpha", "beta"), adapters("alpha", "gamma"), adapters("gamma")));
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c)) {
            Http http = new Http();
            awaitAdapters(http, router);
            String system = AgentSession.sharedSystem(6000);

            // Phase 1: six alpha sessions and four gamma sessions at once; one alpha session asks for sim-0 so that
            // sim-0 surely computed alpha's prefix.
            List<AgentSession> first = new ArrayList<>();
            for (int s = 0; s < 6; s++) {
                first.add(new AgentSession("alpha-" + s + "-5e1f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 3000, 40 + s)
                        .model("alpha"));
            }
            for (int s = 0; s < 4; s++) {
                first.add(new AgentSession("gamma-" + s + "-5e1f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 3000, 60 + s)
                        .model("gamma"));
            }
            Map<String, List<Http.Reply>> phase1 = run(http, router, first, 3, "alpha-0-5e1f");
            phase1.forEach((id, replies) -> {
                assertThat(replies).extracting(Http.Reply::status).as("statuses of %s", id).containsOnly(200);
                assertThat(replies.stream().map(Http.Reply::replica).distinct().toList()).as("replicas of %s", id).hasSize(1)
                        .allMatch(id.startsWith("alpha") ? Set.of("sim-0", "sim-1")::contains : Set.of("sim-1", "sim-2")::contains);
                if (!id.equals("alpha-0-5e1f")) {
                    assertThat(replies).extracting(Http.Reply::decision).as("decisions of %s", id)
                            .containsExactly("NEW", "STICKY", "STICKY");
                }
            });
            assertThat(phase1.get("alpha-0-5e1f").get(0).replica()).isEqualTo("sim-0");
            for (String id : phase1.keySet()) {
                List<JsonNode> steps = steps(http, router, id);
                for (int i = 1; i < steps.size(); i++) {
                    assertThat(steps.get(i).path("expectedCachedTokens").asInt()).as("step %d of %s predicted", i, id).isPositive();
                }
            }

            // Phase 2: four beta sessions at once, with the very system prompt alpha's sessions left on sim-0, the only
            // replica that lists beta.
            List<AgentSession> second = new ArrayList<>();
            for (int s = 0; s < 4; s++) {
                second.add(new AgentSession("beta-" + s + "-5e1f", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 3000, 80 + s)
                        .model("beta"));
            }
            Map<String, List<Http.Reply>> phase2 = run(http, router, second, 3, null);
            int coldFirstSteps = 0;
            for (Map.Entry<String, List<Http.Reply>> e : phase2.entrySet()) {
                assertThat(e.getValue()).extracting(Http.Reply::status).as("statuses of %s", e.getKey()).containsOnly(200);
                assertThat(e.getValue()).extracting(Http.Reply::replica).as("replicas of %s", e.getKey())
                        .containsOnly("sim-0");
                assertThat(e.getValue()).extracting(Http.Reply::decision).as("decisions of %s", e.getKey())
                        .containsExactly("NEW", "STICKY", "STICKY");
                List<JsonNode> steps = steps(http, router, e.getKey());
                JsonNode firstStep = steps.get(0);
                // The engine keys blocks by adapter: what a beta step finds cached came from beta's own sessions. The
                // router must predict no more than that, above all nothing from alpha's identical prefix.
                assertThat(firstStep.path("expectedCachedTokens").asLong()).as("first step of %s: predicted vs engine", e.getKey())
                        .isLessThanOrEqualTo(firstStep.path("cachedTokens").asLong() + 64);
                if (firstStep.path("cachedTokens").asLong() == 0) {
                    coldFirstSteps++;
                    assertThat(firstStep.path("expectedCachedTokens").asInt()).as("first step of %s", e.getKey()).isZero();
                }
                for (int i = 1; i < steps.size(); i++) {
                    assertThat(steps.get(i).path("expectedCachedTokens").asInt()).as("step %d of %s predicted", i, e.getKey())
                            .isPositive();
                }
            }
            assertThat(coldFirstSteps).as("the first beta step on sim-0 found nothing of alpha's prefix").isPositive();
        }
    }

    /**
     * With the engines' KV events: an adapter's blocks arrive rooted at its name, and the router looks its prompts up
     * under that root, so an adapter session's next steps are predicted from the engine's own word ({@code events}); a
     * session on another adapter with the same system prompt is predicted nothing from them.
     */
    @Test
    void withKvEventsAnAdapterSessionIsPredictedFromItsOwnBlocksOnly() throws Exception {
        // Every step must be judged from the events: the views are never let go stale (a loaded machine can hold a step's
        // first event past the 10 s default, and the router then rightly falls back to its estimate).
        try (SimPool sims = SimPool.startWithKvEvents(SimProfile.defaultProfile(), 20, adapters("alpha", "beta"), true, true);
             RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(CacheViewSettings.KV_EVENTS_STALE_AFTER, Duration.ofMinutes(10)))) {
            Http http = new Http();
            awaitEventViews(http, router);
            String system = AgentSession.sharedSystem(6000);
            Map<String, List<Http.Reply>> alpha = runChat(http, router, "alpha", "alpha-ev", system, 4, 3);
            for (Map.Entry<String, List<Http.Reply>> e : alpha.entrySet()) {
                assertThat(e.getValue()).extracting(Http.Reply::status).as("statuses of %s", e.getKey()).containsOnly(200);
                List<JsonNode> steps = steps(http, router, e.getKey());
                for (int i = 1; i < steps.size(); i++) {
                    assertThat(steps.get(i).path("expectedFrom").asText()).as("step %d of %s", i, e.getKey()).isEqualTo("events");
                    assertThat(steps.get(i).path("expectedCachedTokens").asInt()).as("step %d of %s", i, e.getKey()).isPositive();
                }
            }
            Map<String, List<Http.Reply>> beta = runChat(http, router, "beta", "beta-ev", system, 1, 3);
            JsonNode firstStep = steps(http, router, beta.keySet().iterator().next()).get(0);
            assertThat(firstStep.path("cachedTokens").asLong()).isZero();
            assertThat(firstStep.path("expectedCachedTokens").asInt()).isZero();
        }
    }

    @Test
    void anAdapterCardIsAModelOfItsOwnAndACacheIdentity() {
        ServedModels served = ServedModels.parse("{\"object\":\"list\",\"data\":["
                + "{\"id\":\"base\",\"root\":\"/models/base\",\"parent\":null},"
                + "{\"id\":\"base-alias\",\"root\":\"/models/base\",\"parent\":null},"
                + "{\"id\":\"alpha\",\"root\":\"/adapters/alpha\",\"parent\":\"base\"}]}");
        assertThat(served.modelOf()).containsEntry("base-alias", "base").containsEntry("alpha", "alpha");
        assertThat(served.adapters()).containsExactly("alpha");
    }

    /** Runs the sessions concurrently, {@code steps} steps each; {@code pinnedToSim0} (or null) asks for sim-0. */
    private static Map<String, List<Http.Reply>> run(Http http, RouterUnderTest router, List<AgentSession> sessions, int steps,
                                                     String pinnedToSim0) throws Exception {
        return ConcurrentSessions.run(http, router.url(), sessions, steps, (session, step) -> {
            Map<String, String> headers = new LinkedHashMap<>(session.headers());
            if (session.id().equals(pinnedToSim0)) {
                headers.put("X-LMW-Replica", "sim-0");
            }
            return headers;
        });
    }

    /** {@code count} chat sessions at once on {@code model}, {@code steps} steps each (chat: the router asks token ids). */
    private static Map<String, List<Http.Reply>> runChat(Http http, RouterUnderTest router, String model, String prefix,
                                                         String system, int count, int steps) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            Map<String, Future<List<Http.Reply>>> running = new LinkedHashMap<>();
            for (int s = 0; s < count; s++) {
                String id = prefix + "-" + s + "-77aa";
                running.put(id, pool.submit(() -> {
                    com.fasterxml.jackson.databind.node.ObjectNode body = JSON.createObjectNode();
                    body.put("model", model);
                    body.put("max_tokens", 16);
                    var messages = body.putArray("messages");
                    messages.addObject().put("role", "system").put("content", system);
                    messages.addObject().put("role", "user").put("content", "session " + id + ": "
                            + AgentSession.sharedSystem(2000 + id.length()));
                    List<Http.Reply> out = new ArrayList<>();
                    for (int step = 0; step < steps; step++) {
                        Http.Reply r = http.post(router.url() + "/v1/chat/completions", JSON.writeValueAsString(body),
                                Map.of("X-Session-Id", id));
                        out.add(r);
                        if (r.status() != 200) {
                            break;
                        }
                        messages.addObject().put("role", "assistant")
                                .put("content", JSON.readTree(r.body()).at("/choices/0/message/content").asText());
                        messages.addObject().put("role", "user").put("content", "tool result " + step + " of " + id);
                    }
                    return out;
                }));
            }
            Map<String, List<Http.Reply>> replies = new LinkedHashMap<>();
            for (Map.Entry<String, Future<List<Http.Reply>>> e : running.entrySet()) {
                replies.put(e.getKey(), e.getValue().get(120, TimeUnit.SECONDS));
            }
            return replies;
        } finally {
            pool.shutdown();
        }
    }

    /** Polls until every replica's cache view follows the engine's events. */
    private static void awaitEventViews(Http http, RouterUnderTest router) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode rows = null;
        while (System.nanoTime() < deadline) {
            rows = JSON.readTree(http.get(router.adminUrl() + "/api/replicas").body()).path("replicas");
            boolean all = rows.size() == 2;
            for (JsonNode r : rows) {
                all &= "events".equals(r.path("cacheView").asText());
            }
            if (all) {
                return;
            }
            RouterUnderTest.sleep(50);
        }
        throw new AssertionError("the replicas' cache views did not follow events within 20 s: " + rows);
    }

    private static List<JsonNode> steps(Http http, RouterUnderTest router, String session) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        JSON.readTree(http.get(router.url() + "/api/sessions/" + session).body()).path("steps").forEach(out::add);
        assertThat(out).as("steps of %s", session).hasSize(3);
        return out;
    }

    /** Polls {@code /api/replicas} until every replica lists its adapters (the router checks every 100 ms). */
    private static void awaitAdapters(Http http, RouterUnderTest router) throws Exception {
        List<Set<String>> wanted = List.of(Set.of("alpha", "beta"), Set.of("alpha", "gamma"), Set.of("gamma"));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode rows = null;
        while (System.nanoTime() < deadline) {
            rows = JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas");
            boolean all = rows.size() == 3;
            for (int i = 0; all && i < 3; i++) {
                Set<String> names = new HashSet<>();
                rows.get(i).path("servedModels").forEach(n -> names.add(n.asText()));
                all = names.containsAll(wanted.get(i));
            }
            if (all) {
                return;
            }
            RouterUnderTest.sleep(50);
        }
        throw new AssertionError("the replicas' adapters were not listed within 20 s: " + rows);
    }
}
