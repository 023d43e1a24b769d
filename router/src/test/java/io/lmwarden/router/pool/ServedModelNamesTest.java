package io.lmwarden.router.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.ConcurrentSessions;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21: the router learns every name each replica serves from its {@code GET /v1/models} (vLLM labels its
 * metrics with the first served name only), so sessions that ask for a served alias (Claude Code's own model
 * names) are placed and pinned like any other; aliases of one model share one pin; a name nobody serves gets the
 * engine's own 404 and pins nothing; a replica that serves a new name after a restart is picked up. The same for
 * the engine ranks of one data-parallel server. Simulated replicas started with {@code --served-model-name}
 * aliases, real HTTP throughout.
 */
class ServedModelNamesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> NAMES = List.of(AgentSession.MODEL, "claude-opus-4-8", "claude-sonnet-5-5");
    private static final String LATE = "claude-haiku-5-5";

    @Test
    void sixConcurrentSessionsOnEachAliasAndOnThePrimaryNameStayOnTheirReplicaEveryStep() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(List.of(1, 1, 1, 1), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, NAMES), c -> c)) {
            Http http = new Http();
            awaitServed(http, router, rows -> rows.size() == 4 && allServe(rows, NAMES));
            JsonNode rows = replicaRows(http, router);
            for (JsonNode row : rows) {
                assertThat(names(row.path("servedModels"))).as("/api/replicas lists every served name of %s", row.path("id"))
                        .containsExactlyElementsOf(NAMES);
                assertThat(row.path("servedModelsFrom").asText()).isEqualTo("/v1/models");
                assertThat(names(row.path("models"))).as("the metrics label only the first").containsExactly(AgentSession.MODEL);
            }

            // 6 sessions per name, all 18 at once, 4 steps each.
            AgentWorkload.Result result = new AgentWorkload(18, 4, AgentSession.Identity.CLAUDE_CODE_HEADER).withModelNames(NAMES)
                    .run(router, "alias");

            assertThat(result.statuses()).hasSize(72).containsOnly(200);
            result.decisionsBySession().forEach((session, decisions) ->
                    assertThat(decisions).as("decisions of %s", session).containsExactly("NEW", "STICKY", "STICKY", "STICKY"));
            result.replicasBySession().forEach((session, where) ->
                    assertThat(new HashSet<>(where)).as("replicas of %s", session).hasSize(1));
            assertThat(JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("affinityEntries").asInt()).isEqualTo(18);
        }
    }

    /**
     * No waiting for the names: the moment every replica has fresh metrics (what {@code RouterUnderTest} waits for,
     * and what makes a replica placeable), each already lists its names from {@code /v1/models}, although every
     * replica's API server takes 600 ms to answer that list (checks every second, so a check waits up to 4 s); sessions sent at
     * once on an alias are pinned under their model's key from the first step. Before this, a replica entered placement
     * with its names unasked; a session's first step was pinned under the alias's own key and its second, once the list
     * arrived, under the model's: {@code NEW, NEW} and often another replica (a check right after start on a loaded
     * machine: 5 of 6 sessions moved).
     */
    @Test
    void sessionsSentTheMomentTheRouterIsReadyArePinnedUnderTheirModelFromTheFirstStep() throws Exception {
        SimPool sims = SimPool.start(List.of(1, 1, 1, 1), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, NAMES);
        Http http = new Http();
        for (int i = 0; i < sims.size(); i++) {
            assertThat(http.post(sims.url(i) + "/sim/faults", "{\"modelsStallMs\":600}", Map.of()).status()).isEqualTo(200);
        }
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.withScrapeInterval(Duration.ofSeconds(1)))) {
            for (JsonNode row : replicaRows(http, router)) {
                assertThat(row.path("servedModelsFrom").asText()).as("names of placeable %s", row.path("id")).isEqualTo("/v1/models");
            }
            assertSessionsStayOn(http, router, "claude-opus-4-8", "at-once", Set.of("sim-0", "sim-1", "sim-2", "sim-3"));
        }
    }

    @Test
    void aSessionThatSwitchesBetweenTwoNamesOfOneModelStaysHome() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(List.of(1, 1, 1), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, NAMES), c -> c)) {
            Http http = new Http();
            awaitServed(http, router, rows -> rows.size() == 3 && allServe(rows, NAMES));
            String system = AgentSession.sharedSystem(3000);
            List<AgentSession> sessions = new ArrayList<>();
            for (int s = 0; s < 6; s++) {
                sessions.add(new AgentSession("switch-" + s + "-9f8e", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 4000, 300 + s));
            }
            Map<String, List<Http.Reply>> replies = runConcurrently(http, router, sessions, 4,
                    (session, step) -> NAMES.get((sessions.indexOf(session) + step) % NAMES.size()));

            replies.forEach((id, list) -> {
                assertThat(list).extracting(Http.Reply::status).containsOnly(200);
                assertThat(list).extracting(Http.Reply::decision).as("decisions of %s", id)
                        .containsExactly("NEW", "STICKY", "STICKY", "STICKY");
                assertThat(list.stream().map(Http.Reply::replica).distinct()).as("replicas of %s", id).hasSize(1);
            });
            // One pin per session, whichever names it used; and the engine served each step from the prefix it held.
            assertThat(JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("affinityEntries").asInt()).isEqualTo(6);
            for (AgentSession s : sessions) {
                JsonNode steps = JSON.readTree(http.get(router.url() + "/api/sessions/" + s.id()).body()).path("steps");
                assertThat(steps).hasSize(4);
                for (int i = 1; i < 4; i++) {
                    assertThat(steps.get(i).path("cachedTokens").asLong()).as("step %d of %s", i, s.id())
                            .isGreaterThan(steps.get(i - 1).path("promptTokens").asLong() / 2);
                }
            }
        }
    }

    @Test
    void aNameNoReplicaServesGetsTheEnginesOwn404InTheApisShapeIsLoggedOnceAndPinsNothing() throws Exception {
        Logger placerLog = Logger.getLogger(Placer.class.getName());
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        placerLog.addHandler(capture);
        try (RouterUnderTest router = RouterUnderTest.start(
                SimPool.start(List.of(1, 1), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, NAMES), c -> c)) {
            Http http = new Http();
            awaitServed(http, router, rows -> rows.size() == 2 && allServe(rows, NAMES));
            int entriesBefore = JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("affinityEntries").asInt();
            // Four sessions at once, each sending three steps for a name no replica serves, in both APIs.
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<List<Http.Reply>>> sent = new ArrayList<>();
            for (int s = 0; s < 4; s++) {
                boolean anthropic = s % 2 == 0;
                String session = "nobody-" + s;
                sent.add(pool.submit(() -> {
                    List<Http.Reply> out = new ArrayList<>();
                    for (int step = 0; step < 3; step++) {
                        out.add(anthropic
                                ? http.post(router.url() + "/v1/messages", "{\"model\":\"claude-nope-1\",\"max_tokens\":8,"
                                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}",
                                        Map.of("X-Claude-Code-Session-Id", session, "anthropic-version", "2023-06-01"))
                                : http.post(router.url() + "/v1/chat/completions", "{\"model\":\"claude-nope-1\",\"max_tokens\":8,"
                                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}", Map.of("X-Session-Id", session)));
                    }
                    return out;
                }));
            }
            for (int s = 0; s < 4; s++) {
                for (Http.Reply r : sent.get(s).get(60, TimeUnit.SECONDS)) {
                    assertThat(r.status()).isEqualTo(404);
                    assertThat(r.decision()).as("never pinned, so never STICKY").isEqualTo("NEW");
                    JsonNode body = JSON.readTree(r.body());
                    if (s % 2 == 0) {
                        assertThat(body.path("type").asText()).isEqualTo("error");
                        assertThat(body.path("error").path("type").asText()).isEqualTo("not_found_error");
                        assertThat(body.path("error").path("message").asText()).contains("claude-nope-1", "does not exist");
                    } else {
                        assertThat(body.path("error").path("type").asText()).isEqualTo("NotFoundError");
                        assertThat(body.path("error").path("param").asText()).isEqualTo("model");
                        assertThat(body.path("error").path("code").asInt()).isEqualTo(404);
                        assertThat(body.path("error").path("message").asText()).contains("claude-nope-1", "does not exist");
                    }
                }
            }
            pool.shutdown();
            JsonNode after = JSON.readTree(http.get(router.url() + "/api/replicas").body());
            assertThat(after.path("affinityEntries").asInt()).isEqualTo(entriesBefore);
            assertThat(after.path("queue").path("length").asInt()).isZero();
            for (JsonNode row : after.path("replicas")) {
                assertThat(row.path("residentSessions").asInt()).as("no KV budget held for it on %s", row.path("id")).isZero();
            }
            // Twelve requests, one line: the name and what is served instead.
            List<String> lines = logged.stream().map(r -> r.getMessage() + " " + java.util.Arrays.toString(r.getParameters()))
                    .filter(m -> m.contains("claude-nope-1")).toList();
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).contains("no replica serves", "claude-opus-4-8");

            // The names it does serve still work, and are pinned.
            Http.Reply ok = http.post(router.url() + "/v1/chat/completions", "{\"model\":\"claude-sonnet-5-5\",\"max_tokens\":4,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}", Map.of("X-Session-Id", "served-1"));
            assertThat(ok.status()).isEqualTo(200);
            assertThat(http.post(router.url() + "/v1/chat/completions", "{\"model\":\"claude-sonnet-5-5\",\"max_tokens\":4,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}", Map.of("X-Session-Id", "served-1")).decision())
                    .isEqualTo("STICKY");
        } finally {
            placerLog.removeHandler(capture);
        }
    }

    @Test
    void aReplicaThatServesANewNameAfterARestartIsPickedUp() throws Exception {
        SimPool sims = SimPool.start(List.of(1, 1), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, List.of(AgentSession.MODEL));
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c)) {
            Http http = new Http();
            awaitServed(http, router, rows -> rows.size() == 2 && allServe(rows, List.of(AgentSession.MODEL)));
            assertThat(post(http, router, LATE, "late-before").status()).as("nobody serves it yet").isEqualTo(404);

            // sim-1 goes down and comes back as a process that also answers to LATE, as after a redeploy.
            sims.kill(1);
            awaitServed(http, router, rows -> !rows.get(1).path("ready").asBoolean());
            sims.restart(1, List.of(AgentSession.MODEL, LATE));
            awaitServed(http, router, rows -> rows.get(1).path("ready").asBoolean()
                    && names(rows.get(1).path("servedModels")).contains(LATE));

            assertSessionsStayOn(http, router, LATE, "late", Set.of("sim-1"));
            // The primary name is still served by both.
            assertThat(post(http, router, AgentSession.MODEL, "primary-after").status()).isEqualTo(200);
        }
    }

    @Test
    void theEngineRanksOfOneDataParallelServerShareItsNamesBeforeAndAfterARestart() throws Exception {
        SimPool sims = SimPool.start(List.of(4), SimProfile.defaultProfile(), 20, BalancerEra.CURRENT, NAMES);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.withReplicas(List.of("dp=" + sims.url(0))))) {
            Http http = new Http();
            awaitServed(http, router, rows -> rows.size() == 4 && allServe(rows, NAMES));
            for (JsonNode row : replicaRows(http, router)) {
                assertThat(row.path("endpoint").asText()).isEqualTo("dp");
                assertThat(names(row.path("servedModels"))).as("rank %s", row.path("rank")).containsExactlyElementsOf(NAMES);
            }
            AgentWorkload.Result result = new AgentWorkload(12, 4, AgentSession.Identity.CLAUDE_CODE_HEADER).withModelNames(NAMES)
                    .run(router, "dp-alias");
            assertThat(result.statuses()).hasSize(48).containsOnly(200);
            Set<String> ranksUsed = new HashSet<>();
            result.decisionsBySession().forEach((session, decisions) ->
                    assertThat(decisions).as("decisions of %s", session).containsExactly("NEW", "STICKY", "STICKY", "STICKY"));
            result.replicasBySession().forEach((session, where) -> {
                assertThat(new HashSet<>(where)).as("ranks of %s", session).hasSize(1);
                ranksUsed.add(where.get(0));
            });
            assertThat(ranksUsed).as("sessions spread over the ranks").hasSizeGreaterThan(1);

            Http.Reply nobody = post(http, router, LATE, "dp-nobody");
            assertThat(nobody.status()).isEqualTo(404);
            assertThat(nobody.decision()).isEqualTo("NEW");
            assertThat(post(http, router, LATE, "dp-nobody").decision()).as("not pinned").isEqualTo("NEW");

            sims.kill(0);
            awaitServed(http, router, rows -> rows.stream().noneMatch(r -> r.path("ready").asBoolean()));
            sims.restart(0, List.of(AgentSession.MODEL, LATE));
            awaitServed(http, router, rows -> rows.size() == 4 && rows.stream().allMatch(r -> r.path("ready").asBoolean())
                    && allServe(rows, List.of(AgentSession.MODEL, LATE)));
            assertSessionsStayOn(http, router, LATE, "dp-late", Set.of("dp/rank-0", "dp/rank-1", "dp/rank-2", "dp/rank-3"));
        }
    }

    /** Several sessions at once on {@code model}, three steps each: every one NEW then STICKY on one of {@code allowed}. */
    private static void assertSessionsStayOn(Http http, RouterUnderTest router, String model, String prefix, Set<String> allowed)
            throws Exception {
        String system = AgentSession.sharedSystem(2000);
        List<AgentSession> sessions = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            sessions.add(new AgentSession(prefix + "-" + s + "-7c6d", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 3000, 500 + s));
        }
        runConcurrently(http, router, sessions, 3, (session, step) -> model).forEach((id, list) -> {
            assertThat(list).extracting(Http.Reply::status).as("statuses of %s", id).containsOnly(200);
            assertThat(list).extracting(Http.Reply::decision).as("decisions of %s", id).containsExactly("NEW", "STICKY", "STICKY");
            assertThat(list.stream().map(Http.Reply::replica).distinct().toList()).as("replicas of %s", id).hasSize(1)
                    .allMatch(allowed::contains);
        });
    }

    interface ModelForStep {
        String name(AgentSession session, int step);
    }

    /** Runs the sessions concurrently, {@code steps} steps each, naming the model per step; replies by session id. */
    private static Map<String, List<Http.Reply>> runConcurrently(Http http, RouterUnderTest router, List<AgentSession> sessions,
                                                                 int steps, ModelForStep model) throws Exception {
        return ConcurrentSessions.run(http, router.url(), sessions, steps, (session, step) -> {
            session.model(model.name(session, step));
            return session.headers();
        });
    }

    private static Http.Reply post(Http http, RouterUnderTest router, String model, String session) {
        return http.post(router.url() + "/v1/chat/completions", "{\"model\":\"" + model + "\",\"max_tokens\":4,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello from " + session + "\"}]}", Map.of("X-Session-Id", session));
    }

    private static JsonNode replicaRows(Http http, RouterUnderTest router) throws Exception {
        return JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas");
    }

    private static boolean allServe(List<JsonNode> rows, List<String> names) {
        return rows.stream().allMatch(r -> "/v1/models".equals(r.path("servedModelsFrom").asText())
                && names(r.path("servedModels")).containsAll(names));
    }

    private static List<String> names(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** Polls {@code /api/replicas} until its rows satisfy {@code done} (bounded: the router checks every 100 ms). */
    private static void awaitServed(Http http, RouterUnderTest router, Predicate<List<JsonNode>> done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<JsonNode> rows = List.of();
        while (System.nanoTime() < deadline) {
            rows = new ArrayList<>();
            replicaRows(http, router).forEach(rows::add);
            if (done.test(rows)) {
                return;
            }
            RouterUnderTest.sleep(50);
        }
        throw new AssertionError("/api/replicas never got there within 20 s; last rows: " + rows);
    }
}
