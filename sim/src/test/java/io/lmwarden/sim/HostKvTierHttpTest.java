package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The host-memory KV tier over real HTTP: write-through, loads at the tier's bandwidth, vLLM's counters and usage. */
class HostKvTierHttpTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private static final double GIB = 1024.0 * 1024 * 1024;
    /** 40 GPU blocks of 16 tokens: one 608-token prompt (38 blocks) and its reply fill it; two more push it out entirely. */
    private static final SimProfile GPU_40_BLOCKS = SimProfile.named("tiny").withKvBlocks(40);
    private static final int PROMPT_TOKENS = 608;
    /** Slow on purpose (50 MB/s) so that a load is long on the simulated clock next to everything else. */
    private static final double SLOW_GBPS = 0.05;
    private SimCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimHttp start(SimProfile profile, double timeScale) {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(profile).withTimeScale(timeScale));
        return new SimHttp(cluster.urls().get(0));
    }

    /** A tier of {@code blocks} whole blocks. */
    private static SimProfile withTier(SimProfile p, int blocks, double gbps) {
        return p.withKvOffloadGib(blocks * p.kvBytesPerBlock() / GIB + 1e-9).withOffloadGBps(gbps);
    }

    private static JsonNode chat(SimHttp http, String text) {
        return http.post("/v1/chat/completions", SimHttp.chat(MODEL, text, 4, false)).json();
    }

    /** A completion whose prompt is exactly {@link #PROMPT_TOKENS} tokens (38 full blocks): text of four characters per token. */
    private static JsonNode completion(SimHttp http, long seed) {
        String prompt = SimHttp.text(8 * PROMPT_TOKENS, seed).replace('\n', ' ').substring(0, 4 * PROMPT_TOKENS);
        JsonNode reply = http.post("/v1/completions", "{\"model\":\"" + MODEL + "\",\"prompt\":" + SimHttp.JSON.valueToTree(prompt)
                + ",\"max_tokens\":2}").json();
        assertThat(reply.at("/usage/prompt_tokens").asInt()).isEqualTo(PROMPT_TOKENS);
        return reply;
    }

    private static int cached(JsonNode reply) {
        return reply.at("/usage/prompt_tokens_details/cached_tokens").asInt();
    }

    /** Two other prompts take every GPU block (each writes its own blocks through to the tier too). */
    private static void evictFromGpu(SimHttp http, long seed) {
        completion(http, seed);
        completion(http, seed + 1);
    }

    /** Text of exactly {@code tokens} tokens (four characters each) from {@code seed}. */
    private static String tokensOfText(int tokens, long seed) {
        return SimHttp.text(8 * tokens, seed).replace('\n', ' ').substring(0, 4 * tokens);
    }

    private static JsonNode complete(SimHttp http, String prompt) {
        return http.post("/v1/completions", "{\"model\":\"" + MODEL + "\",\"prompt\":" + SimHttp.JSON.valueToTree(prompt)
                + ",\"max_tokens\":2}").json();
    }

    /**
     * Two sessions return at once, both evicted from the GPU but on the host tier: both loads fit the GPU's 40 blocks
     * (19 each), then neither has the 3 blocks its new tokens need, and nothing runs that would free any. The engine
     * must not stall (it did: every request waited until its client gave up); as vLLM does on a full pool, a holder is
     * preempted and both finish, the preempted one from the blocks it left in the prefix cache.
     */
    @Test
    void twoReturningSessionsWhoseLoadsFillTheGpuBothFinish() throws Exception {
        // Slow loads, so the second session arrives while the first one's copy is still under way.
        SimHttp http = start(withTier(GPU_40_BLOCKS, 400, SLOW_GBPS), 5);
        String a = tokensOfText(304, 1);
        String b = tokensOfText(304, 2);
        complete(http, a);
        complete(http, b);
        // Two other prompts take the GPU; a and b are on the tier only.
        complete(http, tokensOfText(304, 3));
        complete(http, tokensOfText(304, 4));
        double preemptionsBefore = http.metric("vllm:num_preemptions_total");

        var execs = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var fa = java.util.concurrent.CompletableFuture.supplyAsync(() -> complete(http, a + tokensOfText(48, 5)), execs);
            var fb = java.util.concurrent.CompletableFuture.supplyAsync(() -> complete(http, b + tokensOfText(48, 6)), execs);
            JsonNode ra = fa.get(30, java.util.concurrent.TimeUnit.SECONDS);
            JsonNode rb = fb.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(ra.at("/usage/prompt_tokens").asInt()).isEqualTo(352);
            assertThat(rb.at("/usage/prompt_tokens").asInt()).isEqualTo(352);
            // Each found its 19 blocks (304 tokens) cached: loaded from the tier, or left on the GPU by the preemption.
            assertThat(cached(ra)).isEqualTo(304);
            assertThat(cached(rb)).isEqualTo(304);
        } finally {
            execs.shutdownNow();
        }
        assertThat(http.metric("vllm:num_preemptions_total")).isGreaterThan(preemptionsBefore);
    }

    @Test
    void aPrefixEvictedFromTheGpuIsLoadedFromTheHostTierAtItsBandwidth() {
        SimProfile profile = withTier(GPU_40_BLOCKS, 400, SLOW_GBPS);
        assertThat(profile.hostTierBlocks()).isEqualTo(400);
        SimHttp http = start(profile, 5);
        String old = SimHttp.text(2400, 11);
        Map<String, Double> beforeFirst = http.metrics();
        JsonNode first = chat(http, old);
        double coldPrefill = delta(beforeFirst, http.metrics(), "vllm:request_prefill_time_seconds_sum");
        assertThat(first.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();
        int prompt = first.at("/usage/prompt_tokens").asInt();
        evictFromGpu(http, 500);

        Map<String, Double> before = http.metrics();
        JsonNode again = chat(http, old);
        Map<String, Double> after = http.metrics();

        int cached = again.at("/usage/prompt_tokens_details/cached_tokens").asInt();
        int fullBlocks = prompt / 16;
        assertThat(cached).as("every full prompt block came back from the host tier").isEqualTo(fullBlocks * 16);
        assertThat(delta(before, after, "vllm:prefix_cache_hits_total")).as("no GPU hit").isZero();
        assertThat(delta(before, after, "vllm:prefix_cache_queries_total")).isEqualTo(prompt);
        assertThat(delta(before, after, "vllm:external_prefix_cache_hits_total")).isEqualTo(cached);
        assertThat(delta(before, after, "vllm:external_prefix_cache_queries_total")).isEqualTo(prompt);
        assertThat(delta(before, after, "vllm:prompt_tokens_by_source_total", "source=\"external_kv_transfer\"")).isEqualTo(cached);
        assertThat(delta(before, after, "vllm:prompt_tokens_by_source_total", "source=\"local_compute\"")).isEqualTo(prompt - cached);
        assertThat(delta(before, after, "vllm:prompt_tokens_cached_total")).isEqualTo(cached);

        long bytes = fullBlocks * profile.kvBytesPerBlock();
        double loadSeconds = bytes / (SLOW_GBPS * 1e9);
        assertThat(delta(before, after, "vllm:kv_offload_load_bytes_total")).isEqualTo(bytes);
        assertThat(delta(before, after, "vllm:kv_offload_load_time_total")).isCloseTo(loadSeconds, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(delta(before, after, "vllm:kv_offload_total_bytes_total", "transfer_type=\"CPU_to_GPU\"")).isEqualTo(bytes);
        // The request waited for the copy (vLLM's WAITING_FOR_REMOTE_KVS counts as queue time) on the simulated clock,
        // then prefilled only the few tokens past the loaded blocks: engine steps' simulated cost, less than the cold
        // prefill of the whole prompt. An idle engine starts the request at its arrival, so its queue time can be the
        // copy exactly: compared within a rounding error of the sums' subtraction.
        double rounding = 1e-9;
        assertThat(delta(before, after, "vllm:time_to_first_token_seconds_sum")).isGreaterThanOrEqualTo(loadSeconds - rounding);
        assertThat(delta(before, after, "vllm:request_queue_time_seconds_sum")).isGreaterThanOrEqualTo(loadSeconds - rounding);
        assertThat(delta(before, after, "vllm:request_prefill_time_seconds_sum")).as("prefill after the copy")
                .isLessThan(coldPrefill);
    }

    @Test
    void aWholeBlockAlignedPromptFromTheTierStillComputesItsLastToken() {
        SimHttp http = start(withTier(GPU_40_BLOCKS, 400, 25), 20);
        assertThat(cached(completion(http, 21))).isZero();
        evictFromGpu(http, 600);

        Map<String, Double> before = http.metrics();
        JsonNode again = completion(http, 21);
        Map<String, Double> after = http.metrics();

        // All 38 blocks are loaded, but the last token is recomputed: cached_tokens = prompt - 1, as vLLM reports it.
        assertThat(cached(again)).isEqualTo(PROMPT_TOKENS - 1);
        assertThat(delta(before, after, "vllm:external_prefix_cache_hits_total")).isEqualTo(PROMPT_TOKENS);
        assertThat(delta(before, after, "vllm:prefix_cache_hits_total")).isZero();
        assertThat(delta(before, after, "vllm:prompt_tokens_recomputed_total")).isEqualTo(1);
        assertThat(delta(before, after, "vllm:prompt_tokens_cached_total")).isEqualTo(PROMPT_TOKENS - 1);
        assertThat(delta(before, after, "vllm:prompt_tokens_by_source_total", "source=\"local_compute\"")).isEqualTo(1);
        assertThat(delta(before, after, "vllm:prompt_tokens_by_source_total", "source=\"local_cache_hit\"")).isZero();
        assertThat(delta(before, after, "vllm:prompt_tokens_by_source_total", "source=\"external_kv_transfer\""))
                .isEqualTo(PROMPT_TOKENS);
    }

    @Test
    void theHostTierEvictsItsLeastRecentlyUsedPrefix() {
        // Room for exactly three 38-block prompts.
        SimHttp http = start(withTier(GPU_40_BLOCKS, 3 * 38, 25), 20);
        completion(http, 31);                                  // tier: a
        completion(http, 32);                                  // tier: a b
        assertThat(cached(completion(http, 31))).as("control: a comes back from the tier, now its most recent")
                .isGreaterThan(PROMPT_TOKENS - 32);            // tier: b a
        completion(http, 33);                                  // tier: b a c (full)
        completion(http, 34);                                  // tier: a c d, b evicted as least recently used

        Map<String, Double> before = http.metrics();
        int aAgain = cached(completion(http, 31));
        Map<String, Double> afterA = http.metrics();
        int bAgain = cached(completion(http, 32));

        assertThat(aAgain).as("used recently: kept").isEqualTo(PROMPT_TOKENS - 1);
        assertThat(delta(before, afterA, "vllm:external_prefix_cache_hits_total")).isGreaterThan(PROMPT_TOKENS - 32);
        assertThat(bAgain).as("least recently used: evicted from the tier (and long gone from the GPU)").isZero();
        assertThat(delta(afterA, http.metrics(), "vllm:external_prefix_cache_hits_total")).isZero();
    }

    @Test
    void offloadSeriesCarryVllmsNamesTypesAndLabels() {
        SimHttp http = start(withTier(GPU_40_BLOCKS, 400, 25), 20);
        completion(http, 41);
        String text = http.get("/metrics").body();
        Map<String, String> types = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] p = line.split(" ");
                types.put(p[2], p[3]);
            }
        }
        assertThat(types).containsEntry("vllm:external_prefix_cache_queries_total", "counter")
                .containsEntry("vllm:external_prefix_cache_hits_total", "counter")
                .containsEntry("vllm:prompt_tokens_by_source_total", "counter")
                .containsEntry("vllm:prompt_tokens_cached_total", "counter")
                .containsEntry("vllm:prompt_tokens_recomputed_total", "counter")
                .containsEntry("vllm:kv_offload_load_bytes_total", "counter")
                .containsEntry("vllm:kv_offload_load_time_total", "counter")
                .containsEntry("vllm:kv_offload_store_bytes_total", "counter")
                .containsEntry("vllm:kv_offload_store_time_total", "counter")
                .containsEntry("vllm:kv_offload_load_size", "histogram")
                .containsEntry("vllm:kv_offload_store_size", "histogram")
                .containsEntry("vllm:kv_offload_total_bytes_total", "counter")
                .containsEntry("vllm:kv_offload_total_time_total", "counter")
                .containsEntry("vllm:kv_offload_size", "histogram")
                .containsEntry("vllm:kv_offload_cpu_cache_usage_perc", "gauge");
        String labels = "model_name=\"" + MODEL + "\",engine=\"0\"";
        assertThat(text).contains("vllm:kv_offload_store_size_bucket{" + labels + ",le=\"1e+06\"}")
                .contains("vllm:kv_offload_store_size_bucket{" + labels + ",le=\"1.5e+08\"}")
                .contains("vllm:kv_offload_size_bucket{" + labels + ",transfer_type=\"GPU_to_CPU\",le=\"5e+06\"}")
                .contains("vllm:kv_offload_total_bytes_total{" + labels + ",transfer_type=\"CPU_to_GPU\"} 0.0")
                .contains("vllm:kv_offload_cpu_cache_usage_perc{" + labels + "} 0.0")
                .containsPattern("vllm:cache_config_info\\{[^}]*kv_offloading_size=\"0\\.\\d+\"");
        // Write-through: the prompt's full blocks were copied out.
        assertThat(http.metric("vllm:kv_offload_store_bytes_total")).isPositive();
        assertThat(cluster.replicas().get(0).snapshot().hostTierBlocksUsed()).isPositive();
    }

    @Test
    void withoutATierThereAreNoOffloadSeriesAndNoExternalHits() {
        SimHttp http = start(GPU_40_BLOCKS, 20);
        completion(http, 11);
        evictFromGpu(http, 700);
        int cached = cached(completion(http, 11));
        String text = http.get("/metrics").body();
        assertThat(cached).isZero();
        assertThat(text).doesNotContain("vllm:kv_offload_").contains("kv_offloading_size=\"None\"");
        assertThat(http.metric("vllm:external_prefix_cache_queries_total")).isZero();
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String name) {
        return delta(before, after, name, "");
    }

    /** The change of the samples of {@code name} whose labels contain {@code labelPart}. */
    private static double delta(Map<String, Double> before, Map<String, Double> after, String name, String labelPart) {
        return sum(after, name, labelPart) - sum(before, name, labelPart);
    }

    private static double sum(Map<String, Double> samples, String name, String labelPart) {
        return samples.entrySet().stream()
                .filter(e -> e.getKey().startsWith(name + "{") && e.getKey().contains(labelPart))
                .mapToDouble(Map.Entry::getValue).sum();
    }
}
