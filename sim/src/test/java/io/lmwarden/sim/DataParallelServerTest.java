package io.lmwarden.sim;

import io.lmwarden.sim.dp.BalancerEra;
import io.lmwarden.sim.dp.DataParallelEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** One simulated {@code vllm serve --data-parallel-size 4}: four engines behind one port, over real HTTP. */
class DataParallelServerTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private SimCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimHttp start(BalancerEra era) {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(10)
                .withEngines(4).withDpBalancer(era));
        return new SimHttp(cluster.urls().get(0));
    }

    private List<Long> promptTokensPerEngine() {
        return cluster.replicas().get(0).engineSnapshots().stream().map(EngineSnapshot::promptTokens).toList();
    }

    @Test
    void theRankHeaderSendsARequestToThatEngineAndMetricsCarryOneSeriesPerEngine() {
        SimHttp http = start(BalancerEra.CURRENT);
        SimHttp.Reply reply = http.post("/v1/chat/completions", SimHttp.chat(MODEL, SimHttp.text(800, 1), 4, false),
                "X-data-parallel-rank", "2");
        assertThat(reply.status()).isEqualTo(200);
        List<Long> prompt = promptTokensPerEngine();
        assertThat(prompt.get(2)).isPositive();
        assertThat(prompt.get(0) + prompt.get(1) + prompt.get(3)).isZero();

        Map<String, Double> running = http.metrics().entrySet().stream()
                .filter(e -> e.getKey().startsWith("vllm:prompt_tokens_total{"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertThat(running).hasSize(4);
        assertThat(running.keySet()).allSatisfy(k -> assertThat(k).containsPattern("engine=\"[0-3]\""));
        assertThat(running.entrySet().stream().filter(e -> e.getKey().contains("engine=\"2\"")).findFirst().orElseThrow().getValue())
                .isEqualTo((double) prompt.get(2));
    }

    @Test
    void aRankOutOfRangeIsVllmsBadRequestAndANonIntegerIsIgnored() {
        SimHttp http = start(BalancerEra.CURRENT);
        SimHttp.Reply bad = http.post("/v1/chat/completions", SimHttp.chat(MODEL, "hello", 4, false), "X-data-parallel-rank", "4");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().at("/error/message").asText()).isEqualTo("data_parallel_rank 4 is out of range [0, 4).");
        SimHttp.Reply anthropic = http.post("/v1/messages", "{\"model\":\"" + MODEL + "\",\"max_tokens\":4,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "X-data-parallel-rank", "-1");
        assertThat(anthropic.status()).isEqualTo(400);
        assertThat(anthropic.json().at("/error/type").asText()).isEqualTo("invalid_request_error");

        SimHttp.Reply ignored = http.post("/v1/chat/completions", SimHttp.chat(MODEL, "hello", 4, false), "X-data-parallel-rank", "two");
        assertThat(ignored.status()).isEqualTo(200);
        assertThat(promptTokensPerEngine().stream().mapToLong(Long::longValue).sum()).isPositive();
    }

    @Test
    void legacyBalancerSendsSequentialRequestsToTheFirstEngineBlindAndCurrentRotate() throws InterruptedException {
        assertThat(enginesUsedBySequentialRequests(BalancerEra.LEGACY)).containsExactly(8L, 0L, 0L, 0L);
        assertThat(enginesUsedBySequentialRequests(BalancerEra.BLIND)).containsExactly(2L, 2L, 2L, 2L);
        assertThat(enginesUsedBySequentialRequests(BalancerEra.CURRENT)).containsExactly(2L, 2L, 2L, 2L);
    }

    /**
     * Requests per engine for 8 requests one after the other, each after the coordinator published the last one's end
     * (the blind era has no coordinator: its balancer only ever counts its own sends).
     */
    private List<Long> enginesUsedBySequentialRequests(BalancerEra era) throws InterruptedException {
        SimHttp http = start(era);
        for (int i = 0; i < 8; i++) {
            assertThat(http.post("/v1/chat/completions", SimHttp.chat(MODEL, "step " + i, 2, false)).status()).isEqualTo(200);
            if (era != BalancerEra.BLIND) {
                awaitBalancerSeesEveryEngineIdle(i);
            }
        }
        List<Long> counts = http.metrics().entrySet().stream()
                .filter(e -> e.getKey().startsWith("vllm:request_success_total{") && e.getKey().contains("finished_reason=\"length\""))
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getValue().longValue()).toList();
        cluster.close();
        cluster = null;
        return counts;
    }

    /** Polls the coordinator's publication; the deadline only turns a hang into a failure, it bounds no speed. */
    private void awaitBalancerSeesEveryEngineIdle(int request) throws InterruptedException {
        DataParallelEngines engines = cluster.replicas().get(0).engines();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!engines.balancerSeesEveryEngineIdle()) {
            assertThat(System.nanoTime()).as("the coordinator published every engine idle after request %d within 60 s", request)
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
