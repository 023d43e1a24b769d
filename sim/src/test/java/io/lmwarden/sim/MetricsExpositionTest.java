package io.lmwarden.sim;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Parses /metrics as a Prometheus scraper would and checks vLLM's names, types and labels. */
class MetricsExpositionTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static SimCluster cluster;

    record Sample(String name, Map<String, String> labels, double value) {
    }

    @BeforeAll
    static void start() {
        cluster = SimCluster.start(SimOptions.defaults().withReplicas(2).withModel("org/model-x")
                .withProfile(SimProfile.named("tiny")).withTimeScale(20));
        SimHttp http = new SimHttp(cluster.urls().get(1));
        http.post("/v1/chat/completions", SimHttp.chat("org/model-x", "warm up", 4, false));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void namesTypesAndLabelsAreVllms() {
        String text = new SimHttp(cluster.urls().get(1)).get("/metrics").body();
        Map<String, String> types = new HashMap<>();
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] p = line.split(" ");
                types.put(p[2], p[3]);
            } else if (!line.startsWith("#") && !line.isBlank()) {
                Matcher m = SAMPLE.matcher(line);
                assertThat(m.matches()).as("sample line: " + line).isTrue();
                Map<String, String> labels = new LinkedHashMap<>();
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
                samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
            }
        }
        assertThat(types).containsEntry("vllm:num_requests_running", "gauge")
                .containsEntry("vllm:num_requests_waiting", "gauge")
                .containsEntry("vllm:kv_cache_usage_perc", "gauge")
                .containsEntry("vllm:prefix_cache_queries_total", "counter")
                .containsEntry("vllm:prefix_cache_hits_total", "counter")
                .containsEntry("vllm:prompt_tokens_total", "counter")
                .containsEntry("vllm:generation_tokens_total", "counter")
                .containsEntry("vllm:num_preemptions_total", "counter")
                .containsEntry("vllm:request_success_total", "counter")
                .containsEntry("vllm:time_to_first_token_seconds", "histogram")
                .containsEntry("vllm:request_queue_time_seconds", "histogram")
                .containsEntry("vllm:request_prefill_time_seconds", "histogram")
                .containsEntry("vllm:request_decode_time_seconds", "histogram")
                .containsEntry("vllm:inter_token_latency_seconds", "histogram")
                .containsEntry("vllm:e2e_request_latency_seconds", "histogram")
                .containsEntry("vllm:request_prompt_tokens", "histogram")
                .containsEntry("vllm:request_generation_tokens", "histogram")
                .containsEntry("vllm:iteration_tokens_total", "histogram")
                .containsEntry("vllm:cache_config_info", "gauge");
        for (Sample s : samples) {
            String family = s.name().replaceAll("_(bucket|count|sum)$", "");
            assertThat(types).as("TYPE line for " + s.name()).containsKey(types.containsKey(s.name()) ? s.name() : family);
            // Replica 1 of a one-engine-per-port pool is engine "0", as a real one-vLLM pod is.
            assertThat(s.labels()).containsEntry("engine", "0");
            if (!s.name().equals("vllm:cache_config_info")) {
                assertThat(s.labels()).containsEntry("model_name", "org/model-x");
            }
        }
        List<String> les = samples.stream().filter(s -> s.name().equals("vllm:time_to_first_token_seconds_bucket"))
                .map(s -> s.labels().get("le")).toList();
        assertThat(les).containsExactly("0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5",
                "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0", "+Inf");
        // vllm/v1/metrics/buckets.py: ACCUMULATED_PHASE_LATENCY, TOKEN_STEP_LATENCY, 1-2-5 up to max_model_len
        // (4096 in the tiny profile) for token counts and up to 16384 for iteration tokens.
        List<String> phase = List.of("0.1", "0.2", "0.3", "0.5", "0.8", "1.0", "1.5", "2.0", "2.5", "5.0", "10.0", "15.0",
                "20.0", "30.0", "40.0", "50.0", "60.0", "120.0", "240.0", "480.0", "960.0", "1920.0", "7680.0", "+Inf");
        for (String h : List.of("vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds",
                "vllm:request_decode_time_seconds", "vllm:e2e_request_latency_seconds")) {
            assertThat(bucketsOf(samples, h)).as(h).isEqualTo(phase);
        }
        assertThat(bucketsOf(samples, "vllm:inter_token_latency_seconds")).containsExactly("0.01", "0.025", "0.05", "0.075",
                "0.1", "0.15", "0.2", "0.3", "0.4", "0.5", "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "+Inf");
        List<String> tokenCounts = List.of("1.0", "2.0", "5.0", "10.0", "20.0", "50.0", "100.0", "200.0", "500.0", "1000.0",
                "2000.0", "+Inf");
        assertThat(bucketsOf(samples, "vllm:request_prompt_tokens")).isEqualTo(tokenCounts);
        assertThat(bucketsOf(samples, "vllm:request_generation_tokens")).isEqualTo(tokenCounts);
        assertThat(bucketsOf(samples, "vllm:iteration_tokens_total")).containsExactly("1.0", "2.0", "5.0", "10.0", "20.0",
                "50.0", "100.0", "200.0", "500.0", "1000.0", "2000.0", "5000.0", "10000.0", "+Inf");
        assertThat(samples.stream().filter(s -> s.name().equals("vllm:request_success_total"))
                .map(s -> s.labels().get("finished_reason"))).containsExactlyInAnyOrder("stop", "length", "abort");
        Sample config = samples.stream().filter(s -> s.name().equals("vllm:cache_config_info")).findFirst().orElseThrow();
        // CacheConfig.metrics_info() (every field of vLLM's CacheConfig, str()-ed) plus engine; no model_name.
        assertThat(config.labels().keySet()).containsExactly("block_size", "user_specified_block_size",
                "user_specified_mamba_block_size", "kv_cache_layout", "prefix_match_unit", "gpu_memory_utilization",
                "cache_dtype", "is_attention_free", "num_gpu_blocks_override", "sliding_window", "enable_prefix_caching",
                "prefix_caching_hash_algo", "attn_group_size", "prefix_cache_retention_interval",
                "kv_cache_dtype_skip_layers", "mamba_page_size_padded", "skip_page_size_padded", "mamba_block_size",
                "mamba_cache_dtype", "mamba_ssm_cache_dtype", "mamba_cache_mode", "enable_mamba_fine_grained_prefix_cache",
                "replayssm_buffer_len", "use_replayssm", "use_kda_recoverssm", "num_gpu_blocks", "num_cpu_blocks",
                "effective_attention_block_size", "kv_cache_size_tokens", "kv_cache_max_concurrency",
                "kv_sharing_fast_prefill", "kv_cache_memory_bytes", "kv_offloading_size", "kv_offloading_backend",
                "_block_size_resolved", "engine");
        assertThat(config.labels()).containsEntry("block_size", "16").containsEntry("num_gpu_blocks", "256")
                .containsEntry("enable_prefix_caching", "True").containsEntry("kv_cache_size_tokens", "4096")
                .containsEntry("kv_cache_max_concurrency", "1.0").containsEntry("num_gpu_blocks_override", "None");
        assertThat(config.value()).isEqualTo(1.0);
        double ttftCount = samples.stream().filter(s -> s.name().equals("vllm:time_to_first_token_seconds_count"))
                .findFirst().orElseThrow().value();
        assertThat(ttftCount).isEqualTo(1.0);
        assertThat(samples.stream().filter(s -> s.name().equals("vllm:prompt_tokens_total")).findFirst().orElseThrow()
                .value()).isGreaterThan(0);
    }

    private static List<String> bucketsOf(List<Sample> samples, String histogram) {
        return samples.stream().filter(s -> s.name().equals(histogram + "_bucket")).map(s -> s.labels().get("le")).toList();
    }

    @Test
    void modelsHealthAndTokenize() throws Exception {
        SimHttp http = new SimHttp(cluster.urls().get(0));
        var models = http.get("/v1/models").json();
        assertThat(models.at("/data/0/id").asText()).isEqualTo("org/model-x");
        assertThat(models.at("/data/0/object").asText()).isEqualTo("model");
        assertThat(models.at("/data/0/owned_by").asText()).isEqualTo("vllm");
        assertThat(models.at("/data/0/max_model_len").asInt()).isEqualTo(4096);
        SimHttp.Reply health = http.get("/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.body()).isEmpty();
        var tok = http.post("/tokenize", "{\"prompt\":\"abcdefgh\"}").json();
        assertThat(tok.get("count").asInt()).isEqualTo(2);
        assertThat(tok.get("tokens")).hasSize(2);
        assertThat(tok.get("max_model_len").asInt()).isEqualTo(4096);
        var chatTok = http.post("/tokenize", "{\"messages\":[{\"role\":\"user\",\"content\":\"abcdefgh\"}]}").json();
        assertThat(chatTok.get("count").asInt()).isGreaterThan(2);
    }
}
