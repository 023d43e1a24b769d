package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** --served-model-name aliases, realistic reply lengths and cache_salt isolation. */
class ServedNamesAndLengthsTest {

    @Test
    void aReplicaAnswersToEveryServedNameAndListsThem() {
        try (SimCluster c = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny"))
                .withServedModelNames(List.of("org/real-model", "claude-opus-5-5")).withTimeScale(20))) {
            SimHttp http = new SimHttp(c.urls().get(0));
            JsonNode models = http.get("/v1/models").json().path("data");
            assertThat(models).hasSize(2);
            assertThat(models.get(0).path("id").asText()).isEqualTo("org/real-model");
            assertThat(models.get(1).path("id").asText()).isEqualTo("claude-opus-5-5");
            assertThat(models.get(1).path("root").asText()).isEqualTo("org/real-model");

            SimHttp.Reply alias = http.post("/v1/messages",
                    "{\"model\":\"claude-opus-5-5\",\"max_tokens\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
            assertThat(alias.status()).isEqualTo(200);
            assertThat(alias.json().path("model").asText()).isEqualTo("claude-opus-5-5");
            assertThat(http.post("/v1/chat/completions", SimHttp.chat("org/real-model", "hi", 3, false)).status()).isEqualTo(200);
            assertThat(http.post("/v1/chat/completions", SimHttp.chat("claude-haiku-9", "hi", 3, false)).status()).isEqualTo(404);
            // metrics carry the first name only, as vLLM labels them
            assertThat(http.get("/metrics").body()).contains("model_name=\"org/real-model\"").doesNotContain("claude-opus-5-5");
        }
    }

    @Test
    void realisticLengthsMostlyStopEarlyAndNeverExceedMaxTokens() {
        try (SimCluster c = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny"))
                .withOutputLength(OutputLength.REALISTIC).withTimeScale(50).withSeed(3))) {
            SimHttp http = new SimHttp(c.urls().get(0));
            List<Integer> lengths = new ArrayList<>();
            int stops = 0;
            for (int i = 0; i < 30; i++) {
                JsonNode r = http.post("/v1/chat/completions", SimHttp.chat(SimOptions.DEFAULT_MODEL, "q" + i, 2000, false)).json();
                int n = r.path("usage").path("completion_tokens").asInt();
                assertThat(n).isBetween(1, 2000);
                lengths.add(n);
                if (r.path("choices").get(0).path("finish_reason").asText().equals("stop")) {
                    stops++;
                }
            }
            assertThat(stops).isEqualTo(30);
            Collections.sort(lengths);
            assertThat(lengths.get(15)).isBetween(60, 240);
            assertThat(lengths.get(0)).isLessThan(lengths.get(29));

            // a small max_tokens cuts the long ones: finish reason "length" and exactly max_tokens
            int cut = 0;
            for (int i = 0; i < 20; i++) {
                JsonNode r = http.post("/v1/chat/completions", SimHttp.chat(SimOptions.DEFAULT_MODEL, "s" + i, 60, false)).json();
                assertThat(r.path("usage").path("completion_tokens").asInt()).isBetween(1, 60);
                if (r.path("choices").get(0).path("finish_reason").asText().equals("length")) {
                    assertThat(r.path("usage").path("completion_tokens").asInt()).isEqualTo(60);
                    cut++;
                }
            }
            assertThat(cut).isBetween(5, 20);
        }
    }

    @Test
    void differentCacheSaltsShareNoCachedBlocks() {
        try (SimCluster c = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(20))) {
            SimHttp http = new SimHttp(c.urls().get(0));
            String prompt = SimHttp.text(2000, 77);
            assertThat(cached(http, prompt, "tenant-a")).isZero();
            assertThat(cached(http, prompt, "tenant-b")).isZero();
            assertThat(cached(http, prompt, "tenant-a")).isGreaterThan(400);
            assertThat(cached(http, prompt, null)).isZero();
            SimHttp.Reply bad = http.post("/v1/chat/completions",
                    "{\"model\":\"" + SimOptions.DEFAULT_MODEL + "\",\"cache_salt\":7,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.json().path("error").path("param").asText()).isEqualTo("cache_salt");
        }
    }

    private static int cached(SimHttp http, String prompt, String salt) {
        var body = SimHttp.JSON.createObjectNode();
        body.put("model", SimOptions.DEFAULT_MODEL);
        body.put("max_tokens", 2);
        if (salt != null) {
            body.put("cache_salt", salt);
        }
        body.putArray("messages").addObject().put("role", "user").put("content", prompt);
        return http.post("/v1/chat/completions", body.toString()).json()
                .path("usage").path("prompt_tokens_details").path("cached_tokens").asInt();
    }
}
