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
                .containsEntry("vllm:cache_config_info", "gauge");
        for (Sample s : samples) {
            String family = s.name().replaceAll("_(bucket|count|sum)$", "");
            assertThat(types).as("TYPE line for " + s.name()).containsKey(types.containsKey(s.name()) ? s.name() : family);
            assertThat(s.labels()).containsEntry("model_name", "org/model-x").containsEntry("engine", "1");
        }
        List<String> les = samples.stream().filter(s -> s.name().equals("vllm:time_to_first_token_seconds_bucket"))
                .map(s -> s.labels().get("le")).toList();
        assertThat(les).containsExactly("0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5",
                "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0", "+Inf");
        assertThat(samples.stream().filter(s -> s.name().equals("vllm:request_success_total"))
                .map(s -> s.labels().get("finished_reason"))).containsExactlyInAnyOrder("stop", "length", "abort");
        Sample config = samples.stream().filter(s -> s.name().equals("vllm:cache_config_info")).findFirst().orElseThrow();
        assertThat(config.labels()).containsEntry("block_size", "16").containsEntry("num_gpu_blocks", "256");
        assertThat(config.value()).isEqualTo(1.0);
        double ttftCount = samples.stream().filter(s -> s.name().equals("vllm:time_to_first_token_seconds_count"))
                .findFirst().orElseThrow().value();
        assertThat(ttftCount).isEqualTo(1.0);
        assertThat(samples.stream().filter(s -> s.name().equals("vllm:prompt_tokens_total")).findFirst().orElseThrow()
                .value()).isGreaterThan(0);
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
