package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class SchedulerTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private SimCluster cluster;
    private final ExecutorService pool = Executors.newFixedThreadPool(8);

    @AfterEach
    void stop() {
        pool.shutdownNow();
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void requestsBeyondMaxNumSeqsWaitAndTheirTimeToFirstTokenGrows() throws Exception {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny").withMaxNumSeqs(2))
                .withTimeScale(1));
        SimHttp http = new SimHttp(cluster.urls().get(0));
        http.post("/v1/chat/completions", SimHttp.chat(MODEL, "warm up", 2, false));
        // Eight held before the engine until all are in, then let go together: the engine takes them at once.
        http.post("/sim/faults", "{\"holdNext\":8}");
        List<Future<SimHttp.Stream>> streams = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String body = SimHttp.chat(MODEL, SimHttp.text(800, 200 + i), 120, true);
            streams.add(pool.submit(() -> http.stream("/v1/chat/completions", body)));
        }
        http.awaitHeld(8);
        long released = System.nanoTime();
        http.post("/sim/faults", "{\"release\":true}");
        double maxWaiting = 0;
        double maxRunning = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (streams.stream().anyMatch(f -> !f.isDone())) {
            assertThat(System.nanoTime()).as("eight streams done within 60 s").isLessThan(deadline);
            EngineSnapshot snap = cluster.replicas().get(0).snapshot();
            maxWaiting = Math.max(maxWaiting, Math.max(snap.waiting(), http.metric("vllm:num_requests_waiting")));
            maxRunning = Math.max(maxRunning, Math.max(snap.running(), http.metric("vllm:num_requests_running")));
            Thread.sleep(5);
        }
        List<Long> ttfts = new ArrayList<>();
        for (Future<SimHttp.Stream> f : streams) {
            SimHttp.Stream s = f.get();
            assertThat(s.complete()).isTrue();
            ttfts.add(s.firstDataAtNanos() - released);
        }
        ttfts.sort(null);
        assertThat(maxWaiting).isGreaterThan(0);
        assertThat(maxRunning).isLessThanOrEqualTo(2);
        double fastest = (ttfts.get(0) + ttfts.get(1)) / 2e6;
        double slowest = (ttfts.get(6) + ttfts.get(7)) / 2e6;
        // Four waves of two requests, ≥ 240 ms of decoding each (120 steps of ≥ 2 ms): from the release, the last wave
        // waits three waves.
        assertThat(slowest - fastest).isGreaterThan(400);
        assertThat(http.metric("vllm:request_queue_time_seconds_sum")).isGreaterThan(0.3);
    }

    @Test
    void preemptionWhenTheCacheIsTooSmallAndEveryRequestStillCompletes() throws Exception {
        cluster = SimCluster.start(SimOptions.defaults()
                .withProfile(SimProfile.named("tiny").withKvBlocks(48).withMaxNumSeqs(8)).withTimeScale(10));
        SimHttp http = new SimHttp(cluster.urls().get(0));
        // Six held until all are in, then let go together: they run at once and overflow the 48 blocks.
        http.post("/sim/faults", "{\"holdNext\":6}");
        List<Future<SimHttp.Stream>> streams = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String body = SimHttp.chat(MODEL, SimHttp.text(440, 300 + i), 200, true);
            streams.add(pool.submit(() -> http.stream("/v1/chat/completions", body)));
        }
        http.awaitHeld(6);
        http.post("/sim/faults", "{\"release\":true}");
        for (Future<SimHttp.Stream> f : streams) {
            SimHttp.Stream s = f.get(60, TimeUnit.SECONDS);
            assertThat(s.complete()).isTrue();
            StringBuilder content = new StringBuilder();
            JsonNode usage = null;
            for (String d : s.data()) {
                if (d.equals("[DONE]")) {
                    continue;
                }
                JsonNode chunk = SimHttp.JSON.readTree(d);
                content.append(chunk.at("/choices/0/delta/content").asText(""));
                if (chunk.hasNonNull("usage")) {
                    usage = chunk.get("usage");
                }
            }
            assertThat(content.length()).isEqualTo(800);
            assertThat(usage).isNotNull();
            assertThat(usage.get("completion_tokens").asInt()).isEqualTo(200);
        }
        assertThat(http.metric("vllm:num_preemptions_total")).isGreaterThan(0);
        assertThat(cluster.replicas().get(0).snapshot().preemptions()).isGreaterThan(0);
        assertThat(http.metrics().get("vllm:request_success_total{model_name=\"" + MODEL
                + "\",engine=\"0\",finished_reason=\"length\"}")).isEqualTo(6.0);
        assertThat(http.metric("vllm:kv_cache_usage_perc")).isZero();
    }

    @Test
    void randomOutputLengthStopsEarlyWithFinishReasonStop() {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(50)
                .withRandomOutputLength(true).withSeed(7));
        SimHttp http = new SimHttp(cluster.urls().get(0));
        int stops = 0;
        for (int i = 0; i < 5; i++) {
            JsonNode r = http.post("/v1/chat/completions", SimHttp.chat(MODEL, "hello " + i, 100, false)).json();
            int n = r.at("/usage/completion_tokens").asInt();
            assertThat(n).isBetween(1, 100);
            assertThat(r.at("/choices/0/finish_reason").asText()).isEqualTo(n == 100 ? "length" : "stop");
            stops += n < 100 ? 1 : 0;
        }
        assertThat(stops).isGreaterThan(0);
    }
}
