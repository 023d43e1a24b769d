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
import static org.assertj.core.api.Assertions.within;

/** vLLM's request-level histograms hold what the engine really did with the requests sent. */
class RequestMetricsTest {
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
    void tokenHistogramsSumToWhatWasSentAndQueuedRequestsShowQueueTime() throws Exception {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny").withMaxNumSeqs(2))
                .withTimeScale(1));
        SimHttp http = new SimHttp(cluster.urls().get(0));
        // One request alone: it waits behind no other, so the idle engine schedules it the instant it arrives.
        JsonNode alone = http.post("/v1/chat/completions", SimHttp.chat(MODEL, SimHttp.text(600, 1), 20, false)).json();
        assertThat(http.metric("vllm:request_queue_time_seconds_count")).isEqualTo(1.0);
        assertThat(http.metric("vllm:request_queue_time_seconds_sum")).as("a lone request's queue time").isZero();
        long prompt = alone.at("/usage/prompt_tokens").asLong();
        long output = alone.at("/usage/completion_tokens").asLong();

        // Six at once on a max_num_seqs of 2, held before the engine until all six are in, then let go together:
        // four of them wait for a running pair to finish.
        http.post("/sim/faults", "{\"holdNext\":6}");
        List<Future<SimHttp.Reply>> replies = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String body = SimHttp.chat(MODEL, SimHttp.text(400 + 100 * i, 10 + i), 200 + i, false);
            replies.add(pool.submit(() -> http.post("/v1/chat/completions", body)));
        }
        http.awaitHeld(6);
        http.post("/sim/faults", "{\"release\":true}");
        for (Future<SimHttp.Reply> f : replies) {
            JsonNode usage = f.get(60, TimeUnit.SECONDS).json().get("usage");
            prompt += usage.get("prompt_tokens").asLong();
            output += usage.get("completion_tokens").asLong();
        }
        assertThat(http.metric("vllm:request_prompt_tokens_count")).isEqualTo(7.0);
        assertThat(http.metric("vllm:request_prompt_tokens_sum")).isEqualTo((double) prompt);
        assertThat(http.metric("vllm:request_generation_tokens_sum")).isEqualTo((double) output);
        assertThat(http.metric("vllm:request_generation_tokens_count")).isEqualTo(7.0);
        // A pair takes ≥ 200 decode steps of ≥ 2 ms = 0.4 s of engine time: the four later requests, let go with the
        // first two, waited for a running pair to finish, the last two for two pairs.
        assertThat(http.metric("vllm:request_queue_time_seconds_count")).isEqualTo(7.0);
        assertThat(http.metric("vllm:request_queue_time_seconds_sum")).isGreaterThan(0.3);
        // Inter-token latency: one sample per token after the first; decode time spans those tokens.
        assertThat(http.metric("vllm:inter_token_latency_seconds_count")).isEqualTo((double) (output - 7));
        assertThat(http.metric("vllm:request_decode_time_seconds_sum"))
                .isCloseTo(http.metric("vllm:inter_token_latency_seconds_sum"), within(1e-6));
        // Every engine step's prompt tokens (at a request's first token, as vLLM counts them) and generated tokens.
        assertThat(http.metric("vllm:iteration_tokens_total_sum"))
                .isEqualTo(http.metric("vllm:prompt_tokens_total") + http.metric("vllm:generation_tokens_total"));
        assertThat(http.metric("vllm:iteration_tokens_total_count")).isGreaterThanOrEqualTo((double) (output / 2));
        // e2e = queue + prefill + decode for every request.
        double phases = http.metric("vllm:request_queue_time_seconds_sum") + http.metric("vllm:request_prefill_time_seconds_sum")
                + http.metric("vllm:request_decode_time_seconds_sum");
        assertThat(http.metric("vllm:e2e_request_latency_seconds_sum")).isCloseTo(phases, within(1e-6));
    }
}
