package io.lmwarden.router.pool;

import io.lmwarden.router.config.PlacementSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The router in front of one simulated {@code vllm serve --data-parallel-size N}: every engine rank is a
 * replica of its own, reached through the one port with {@code X-data-parallel-rank}. Real HTTP throughout.
 */
class DataParallelRoutingTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eightSessionsStayEachOnOneEngineOfTheFourAndEachRankHasItsOwnFigures() throws Exception {
        SimPool sims = SimPool.start(List.of(4), SimProfile.defaultProfile(), 10, BalancerEra.CURRENT);
        try (RouterUnderTest router = RouterUnderTest.start(sims,
                c -> c.with(PlacementSettings.POLICY, "affinity").withReplicas(List.of("dp=" + sims.url(0))))) {
            Http http = new Http();
            assertThat(replicaIds(http, router)).as("ranks learned from the engine labels of /metrics")
                    .containsExactly("dp/rank-0", "dp/rank-1", "dp/rank-2", "dp/rank-3");

            AgentWorkload.Result result = new AgentWorkload(8, 5, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "dp");

            assertThat(result.statuses()).hasSize(40).containsOnly(200);
            Map<String, Long> stepsPerRank = new TreeMap<>();
            for (List<String> steps : result.replicasBySession().values()) {
                assertThat(new HashSet<>(steps)).as("all steps of a session on one engine rank").hasSize(1);
                steps.forEach(r -> stepsPerRank.merge(r, 1L, Long::sum));
            }
            assertThat(stepsPerRank.keySet()).as("all four engines used")
                    .containsExactly("dp/rank-0", "dp/rank-1", "dp/rank-2", "dp/rank-3");
            // The engines' own counts: each engine finished exactly the steps the router sent to its rank.
            Map<Integer, Double> finished = engineSeries(http, sims.url(0), "vllm:request_success_total", "length");
            for (int k = 0; k < 4; k++) {
                assertThat(finished.get(k)).as("engine %d", k).isEqualTo(stepsPerRank.get("dp/rank-" + k).doubleValue());
            }
            List<EngineSnapshot> engines = sims.engines(0);
            for (EngineSnapshot e : engines) {
                assertThat((double) e.prefixHits() / e.prefixQueries()).as("each engine serves its sessions' history from cache")
                        .isGreaterThan(0.6);
            }
            assertThat(result.hitRate()).isGreaterThan(0.7);

            // /api/replicas: one row per rank with that engine's own figures (as of the router's next scrape).
            RouterUnderTest.sleep(300);
            JsonNode rows = JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas");
            assertThat(rows).hasSize(4);
            for (int k = 0; k < 4; k++) {
                JsonNode row = rows.get(k);
                assertThat(row.path("id").asText()).isEqualTo("dp/rank-" + k);
                assertThat(row.path("endpoint").asText()).isEqualTo("dp");
                assertThat(row.path("rank").asInt()).isEqualTo(k);
                assertThat(row.path("requests").asLong()).isEqualTo(stepsPerRank.get("dp/rank-" + k));
                assertThat(row.path("prefixCacheQueries").asDouble()).isEqualTo((double) engines.get(k).prefixQueries());
                assertThat(row.path("prefixCacheHits").asDouble()).isEqualTo((double) engines.get(k).prefixHits());
                assertThat(row.path("kvCapacityTokens").asLong()).isEqualTo(SimProfile.defaultProfile().kvCapacityTokens());
            }
        }
    }

    @Test
    void newSessionsAvoidTheEngineWhoseQueueIsFull() throws Exception {
        // Real time and max_num_seqs 4: requests sent straight to engine 2 keep it full and queueing for seconds.
        SimPool sims = SimPool.start(List.of(4), SimProfile.named("tiny"), 1, BalancerEra.CURRENT);
        try (RouterUnderTest router = RouterUnderTest.start(sims,
                c -> c.with(PlacementSettings.POLICY, "affinity").withReplicas(List.of("dp=" + sims.url(0) + "#ranks=4")))) {
            Http http = new Http();
            List<CompletableFuture<Http.Reply>> fill = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                String body = new AgentSession("fill-" + i, AgentSession.Identity.NONE, "fill", 200, 70 + i).nextBody(1500, false);
                fill.add(CompletableFuture.supplyAsync(() -> http.post(sims.url(0) + "/v1/messages", body,
                        Map.of("X-data-parallel-rank", "2"))));
            }
            waitUntil(() -> sims.engines(0).get(2).waiting() >= 2, "engine 2 queueing");
            RouterUnderTest.sleep(300); // a few scrapes

            Set<String> placed = new HashSet<>();
            for (int s = 0; s < 6; s++) {
                AgentSession session = new AgentSession("queue-" + s, AgentSession.Identity.CLAUDE_CODE_HEADER,
                        AgentSession.sharedSystem(400), 400, 300 + s);
                Http.Reply r = http.post(router.url() + "/v1/messages", session.nextBody(4, false), session.headers());
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.decision()).isEqualTo("NEW");
                placed.add(r.replica());
            }
            assertThat(sims.engines(0).get(2).waiting()).as("still full while the sessions were placed").isPositive();
            assertThat(placed).doesNotContain("dp/rank-2").containsExactlyInAnyOrder("dp/rank-0", "dp/rank-1", "dp/rank-3");
            fill.forEach(CompletableFuture::join);
        }
    }

    @Test
    void aDataParallelServerAndAPlainReplicaInOnePoolAndTheServerGoingDown() throws Exception {
        SimPool sims = SimPool.start(List.of(2, 1), SimProfile.defaultProfile(), 10, BalancerEra.CURRENT);
        try (RouterUnderTest router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.POLICY, "affinity")
                .withReplicas(List.of("dp=" + sims.url(0) + "#ranks=2", "plain=" + sims.url(1))))) {
            Http http = new Http();
            assertThat(replicaIds(http, router)).containsExactly("dp/rank-0", "dp/rank-1", "plain");

            List<String> homes = new ArrayList<>();
            List<AgentSession> sessions = new ArrayList<>();
            for (int s = 0; s < 6; s++) {
                AgentSession session = new AgentSession("mixed-" + s, AgentSession.Identity.CLAUDE_CODE_HEADER,
                        AgentSession.sharedSystem(1000), 1000, 500 + s);
                Http.Reply r = http.post(router.url() + "/v1/messages", session.nextBody(4, false), session.headers());
                assertThat(r.status()).isEqualTo(200);
                homes.add(r.replica());
                session.append(AgentSession.replyText(r.body()), 200);
                sessions.add(session);
            }
            assertThat(new HashSet<>(homes)).containsExactlyInAnyOrder("dp/rank-0", "dp/rank-1", "plain");

            // A client's own rank header still pins: rank n is the n-th replica. The router sends the plain
            // replica no rank header (the simulator, like vLLM, would refuse rank 2 of a one-engine server).
            String body = new AgentSession("pinned", AgentSession.Identity.NONE, "pinned", 200, 9).nextBody(4, false);
            Http.Reply toPlain = http.post(router.url() + "/v1/messages", body, Map.of("X-data-parallel-rank", "2"));
            assertThat(toPlain.status()).isEqualTo(200);
            assertThat(toPlain.replica()).isEqualTo("plain");
            assertThat(toPlain.decision()).isEqualTo("CLIENT_PINNED");
            double rank1Before = sims.engines(0).get(1).promptTokens();
            Http.Reply toRank1 = http.post(router.url() + "/v1/messages", body, Map.of("X-data-parallel-rank", "1"));
            assertThat(toRank1.replica()).isEqualTo("dp/rank-1");
            assertThat(sims.engines(0).get(1).promptTokens()).isGreaterThan((long) rank1Before);
            Http.Reply outOfRange = http.post(router.url() + "/v1/messages", body, Map.of("X-data-parallel-rank", "3"));
            assertThat(outOfRange.status()).isEqualTo(400);
            assertThat(outOfRange.body()).contains("out of range").contains("invalid_request_error");

            // The server dies: both its ranks go, and their sessions move to the replica left.
            sims.kill(0);
            waitUntil(() -> {
                String replicas = http.get(router.url() + "/api/replicas").body();
                return replicas.contains("\"id\":\"dp/rank-0\",\"url\"") && countReady(replicas) == 1;
            }, "both ranks of the dead server not ready");
            for (int s = 0; s < sessions.size(); s++) {
                Http.Reply r = http.post(router.url() + "/v1/messages", sessions.get(s).nextBody(4, false), sessions.get(s).headers());
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.replica()).isEqualTo("plain");
                assertThat(r.decision()).isEqualTo(homes.get(s).equals("plain") ? "STICKY" : "NEW");
            }
        }
    }

    @Test
    void passthroughLeavesTheEngineToTheServersOwnBalancer() throws Exception {
        // The blind balancer (local counts only) goes round the engines: what it does shows no rank was sent.
        SimPool sims = SimPool.start(List.of(4), SimProfile.defaultProfile(), 10, BalancerEra.BLIND);
        try (RouterUnderTest router = RouterUnderTest.start(sims,
                c -> c.with(PlacementSettings.POLICY, "passthrough").withReplicas(List.of("dp=" + sims.url(0))))) {
            Http http = new Http();
            AgentSession session = new AgentSession("through", AgentSession.Identity.CLAUDE_CODE_HEADER,
                    AgentSession.sharedSystem(1000), 1000, 11);
            for (int step = 0; step < 8; step++) {
                Http.Reply r = http.post(router.url() + "/v1/messages", session.nextBody(4, false), session.headers());
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.replica()).as("the router names the endpoint, not a rank").isEqualTo("dp");
                session.append(AgentSession.replyText(r.body()), 200);
            }
            Map<Integer, Double> finished = engineSeries(http, sims.url(0), "vllm:request_success_total", "length");
            assertThat(finished).isEqualTo(Map.of(0, 2.0, 1, 2.0, 2, 2.0, 3, 2.0));
        }
    }

    private static List<String> replicaIds(Http http, RouterUnderTest router) throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode r : JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
            ids.add(r.path("id").asText());
        }
        return ids;
    }

    private static int countReady(String replicasJson) {
        return replicasJson.split("\"ready\":true", -1).length - 1;
    }

    /** One series of a simulated server's /metrics per engine label (finished_reason filtered when given). */
    private static Map<Integer, Double> engineSeries(Http http, String simUrl, String name, String finishedReason) {
        Map<Integer, Double> out = new TreeMap<>();
        PrometheusText.forEachSample(http.get(simUrl + "/metrics").body(), s -> {
            if (s.name().equals(name) && (finishedReason == null || finishedReason.equals(s.labels().get("finished_reason")))) {
                out.merge(Integer.parseInt(s.labels().get("engine")), s.value(), Double::sum);
            }
        });
        return out;
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, String what) {
        io.lmwarden.router.testing.Await.until(what, condition, () -> "not yet");
    }
}
