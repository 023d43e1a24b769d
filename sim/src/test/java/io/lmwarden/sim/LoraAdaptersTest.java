package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.sim.lora.LoraModule;
import io.lmwarden.sim.lora.LoraModules;
import io.lmwarden.sim.lora.LoraOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * LoRA adapters over real HTTP: vLLM's max_loras slots, the adapter-keyed prefix cache, {@code /v1/models} cards and
 * {@code vllm:lora_requests_info} against fixtures taken from vLLM's source, and runtime load/unload with vLLM's answers.
 */
class LoraAdaptersTest {
    private static final String BASE = SimOptions.DEFAULT_MODEL;
    /** vLLM's ModelCard fields, in declaration order (vllm/entrypoints/openai/engine/protocol.py). */
    private static final List<String> MODEL_CARD_FIELDS = List.of("id", "object", "created", "owned_by", "root", "parent",
            "max_model_len", "permission");
    /** The gauge's label names as PrometheusStatLogger declares them (vllm/v1/metrics/loggers.py). */
    private static final String LORA_INFO_SAMPLE =
            "vllm:lora_requests_info\\{max_lora=\"(\\d+)\",waiting_lora_adapters=\"([^\"]*)\",running_lora_adapters=\"([^\"]*)\"} (\\S+)";

    private SimCluster cluster;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimHttp start(LoraOptions lora, double timeScale, List<String> served) {
        cluster = SimCluster.start(SimOptions.defaults().withServedModelNames(served).withProfile(SimProfile.named("tiny"))
                .withTimeScale(timeScale).withLora(lora));
        return new SimHttp(cluster.urls().get(0));
    }

    private static LoraOptions adapters(int maxLoras, boolean runtime, String... modules) {
        return LoraOptions.of(LoraModules.parse(List.of(modules)), maxLoras, 4, 16, runtime);
    }

    private static List<String> ids(SimHttp http) {
        List<String> ids = new ArrayList<>();
        http.get("/v1/models").json().get("data").forEach(card -> ids.add(card.get("id").asText()));
        return ids;
    }

    @Test
    void aBatchHoldsAtMostMaxLorasAdaptersAndARequestWhoseAdapterHasNoSlotWaits() throws Exception {
        SimHttp http = start(adapters(1, false, "alpha=/adapters/alpha", "beta=/adapters/beta"), 1, List.of(BASE));
        // alpha decodes for seconds; beta arrives meanwhile and must wait for alpha's slot; a base-model request does not.
        CompletableFuture<HttpResponse<String>> alpha = send(SimHttp.chat("alpha", SimHttp.text(200, 1), 1500, false));
        await(() -> snapshot().running() == 1, "alpha running");
        CompletableFuture<HttpResponse<String>> beta = send(SimHttp.chat("beta", SimHttp.text(200, 2), 4, false));
        CompletableFuture<HttpResponse<String>> base = send(SimHttp.chat(BASE, SimHttp.text(200, 3), 600, false));
        await(() -> snapshot().running() == 2 && snapshot().waiting() == 1 && snapshot().loraSlotWaits() == 1,
                "alpha and the base request running, beta waiting for a slot");
        assertThat(beta).isNotDone();
        // Both adapters have a live request: vLLM lists both in both labels (its LoRARequestStates fills both dicts).
        assertThat(newestLoraInfo(http)).containsExactly("1", "alpha,beta", "alpha,beta");

        assertThat(alpha.get().statusCode()).isEqualTo(200);
        assertThat(beta.get().statusCode()).isEqualTo(200);
        assertThat(base.get().statusCode()).isEqualTo(200);
        EngineSnapshot s = snapshot();
        assertThat(s.loraSlotWaits()).isEqualTo(1);
        // alpha and beta were in CPU memory from the start (static modules, max_cpu_loras 4), each copied once into the
        // one GPU slot.
        assertThat(s.loraDiskLoads()).isZero();
        assertThat(s.loraActivations()).isEqualTo(2);
        await(() -> newestLoraInfo(http).equals(List.of("1", "", "")), "idle: no adapter listed");
    }

    @Test
    void twoAdaptersShareNoCachedBlocksNorWithTheBaseModel() {
        SimHttp http = start(adapters(2, false, "alpha=/adapters/alpha", "beta=/adapters/beta"), 20, List.of(BASE));
        String prompt = SimHttp.text(3000, 5);
        assertThat(cached(http.post("/v1/chat/completions", SimHttp.chat("alpha", prompt, 4, false)).json())).isZero();
        JsonNode again = http.post("/v1/chat/completions", SimHttp.chat("alpha", prompt, 4, false)).json();
        assertThat(cached(again)).isGreaterThan(600);
        assertThat(again.get("model").asText()).isEqualTo("alpha");

        assertThat(cached(http.post("/v1/chat/completions", SimHttp.chat("beta", prompt, 4, false)).json())).isZero();
        assertThat(cached(http.post("/v1/chat/completions", SimHttp.chat(BASE, prompt, 4, false)).json())).isZero();
        assertThat(cached(http.post("/v1/chat/completions", SimHttp.chat("beta", prompt, 4, false)).json())).isGreaterThan(600);
    }

    @Test
    void modelsListsEachAdapterWithItsPathAsRootAndItsBaseModelAsParent() {
        SimHttp http = start(adapters(2, false, "alpha=/adapters/alpha",
                "{\"name\":\"beta\",\"path\":\"org/beta-lora\",\"base_model_name\":\"coder\"}",
                "{\"name\":\"gamma\",\"path\":\"/adapters/gamma\",\"base_model_name\":\"not-served\"}"), 20, List.of(BASE, "coder"));
        JsonNode data = http.get("/v1/models").json().get("data");
        assertThat(data).hasSize(5);
        for (JsonNode card : data) {
            List<String> fields = new ArrayList<>();
            card.fieldNames().forEachRemaining(fields::add);
            assertThat(fields).containsExactlyElementsOf(MODEL_CARD_FIELDS);
            assertThat(card.get("object").asText()).isEqualTo("model");
            assertThat(card.get("owned_by").asText()).isEqualTo("vllm");
            assertThat(card.at("/permission/0/object").asText()).isEqualTo("model_permission");
        }
        assertThat(data.get(0).get("parent").isNull()).isTrue();
        assertCard(data.get(2), "alpha", "/adapters/alpha", BASE);
        assertCard(data.get(3), "beta", "org/beta-lora", "coder");
        // vLLM keeps base_model_name only when it is a served name; otherwise the first served name.
        assertCard(data.get(4), "gamma", "/adapters/gamma", BASE);
        assertThat(http.post("/v1/chat/completions", SimHttp.chat("delta", "hi", 4, false)).status()).isEqualTo(404);
    }

    @Test
    void runtimeLoadAndUnloadAnswerAsVllmDoes() {
        SimHttp http = start(adapters(1, true, "alpha=/adapters/alpha"), 20, List.of(BASE));
        SimHttp.Reply loaded = http.post("/v1/load_lora_adapter", "{\"lora_name\":\"beta\",\"lora_path\":\"/adapters/beta\"}");
        assertThat(loaded.status()).isEqualTo(200);
        assertThat(loaded.body()).isEqualTo("Success: LoRA adapter 'beta' added successfully.");
        assertThat(ids(http)).contains("alpha", "beta");
        assertThat(http.post("/v1/chat/completions", SimHttp.chat("beta", "hello", 4, false)).status()).isEqualTo(200);
        assertThat(cluster.replicas().get(0).engines().engines().get(0).adapterResidence("beta")).isEqualTo("gpu");

        SimHttp.Reply twice = http.post("/v1/load_lora_adapter", "{\"lora_name\":\"beta\",\"lora_path\":\"/adapters/beta\"}");
        assertThat(twice.status()).isEqualTo(400);
        assertThat(twice.json().at("/error/type").asText()).isEqualTo("InvalidUserInput");
        assertThat(twice.json().at("/error/message").asText()).isEqualTo("The lora adapter 'beta' has already been loaded."
                + " If you want to load the adapter in place, set 'load_inplace' to True.");
        assertThat(twice.json().at("/error/code").asInt()).isEqualTo(400);
        assertThat(http.post("/v1/load_lora_adapter", "{\"lora_name\":\"beta\",\"lora_path\":\"/adapters/beta2\","
                + "\"load_inplace\":true}").status()).isEqualTo(200);
        SimHttp.Reply empty = http.post("/v1/load_lora_adapter", "{\"lora_name\":\"\",\"lora_path\":\"/x\"}");
        assertThat(empty.json().at("/error/message").asText()).isEqualTo("Both 'lora_name' and 'lora_path' must be provided.");
        assertThat(http.post("/v1/load_lora_adapter", "{\"lora_name\":\"x\"}").status()).isEqualTo(400);

        SimHttp.Reply unloaded = http.post("/v1/unload_lora_adapter", "{\"lora_name\":\"beta\"}");
        assertThat(unloaded.status()).isEqualTo(200);
        assertThat(unloaded.body()).isEqualTo("Success: LoRA adapter 'beta' removed successfully.");
        SimHttp.Reply gone = http.post("/v1/unload_lora_adapter", "{\"lora_name\":\"beta\"}");
        assertThat(gone.status()).isEqualTo(404);
        assertThat(gone.json().at("/error/type").asText()).isEqualTo("NotFoundError");
        assertThat(gone.json().at("/error/message").asText()).isEqualTo("The lora adapter 'beta' cannot be found.");
        assertThat(http.post("/v1/chat/completions", SimHttp.chat("beta", "hello", 4, false)).status()).isEqualTo(404);
        assertThat(ids(http)).containsExactly(BASE, "alpha");
    }

    @Test
    void withoutRuntimeUpdatingTheLoadEndpointsAreNotServed() {
        SimHttp http = start(adapters(1, false, "alpha=/adapters/alpha"), 20, List.of(BASE));
        assertThat(http.post("/v1/load_lora_adapter", "{\"lora_name\":\"beta\",\"lora_path\":\"/b\"}").status()).isEqualTo(404);
        assertThat(ids(http)).containsExactly(BASE, "alpha");
        // Without LoRA the gauge does not exist, as vLLM registers it only with a lora_config.
        SimCluster plain = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")));
        try {
            assertThat(new SimHttp(plain.urls().get(0)).get("/metrics").body()).doesNotContain("lora");
        } finally {
            plain.close();
        }
    }

    @Test
    void loraModulesAndSettingsAreParsedAndCheckedAsVllmDoes() {
        assertThat(LoraModules.parse(List.of("a=/p/a", "", "{\"name\":\"b\",\"path\":\"/p/b\",\"base_model_name\":\"m\"}")))
                .containsExactly(new LoraModule("a", "/p/a", null), new LoraModule("b", "/p/b", "m"));
        assertThatThrownBy(() -> LoraModules.parse(List.of("{not json"))).hasMessage("Invalid JSON format for --lora-modules: {not json");
        assertThatThrownBy(() -> LoraModules.parse(List.of("{\"name\":\"a\",\"path\":\"/p\",\"rank\":8}")))
                .hasMessageContaining("Invalid fields for --lora-modules");
        assertThatThrownBy(() -> LoraOptions.of(List.of(), 4, 2, 16, false)).hasMessage("max_cpu_loras (2) must be >= max_loras (4)");
        assertThatThrownBy(() -> LoraOptions.of(List.of(), 1, null, 24, false)).hasMessageContaining("max_lora_rank must be one of");
        assertThat(LoraOptions.of(List.of(), 3, null, 16, false).maxCpuLoras()).isEqualTo(3);
        assertThat(SimMain.runtimeLoraUpdatingFromEnv("True")).isTrue();
        assertThat(SimMain.runtimeLoraUpdatingFromEnv("0")).isFalse();
    }

    private static void assertCard(JsonNode card, String id, String root, String parent) {
        assertThat(card.get("id").asText()).isEqualTo(id);
        assertThat(card.get("root").asText()).isEqualTo(root);
        assertThat(card.get("parent").asText()).isEqualTo(parent);
        assertThat(card.get("max_model_len").isNull()).isTrue();
    }

    private static int cached(JsonNode reply) {
        return reply.at("/usage/prompt_tokens_details/cached_tokens").asInt();
    }

    private EngineSnapshot snapshot() {
        return cluster.replicas().get(0).snapshot();
    }

    private CompletableFuture<HttpResponse<String>> send(String body) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(cluster.urls().get(0) + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(120)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The labels of the series set last: max_lora, waiting, running. */
    private static List<String> newestLoraInfo(SimHttp http) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(LORA_INFO_SAMPLE);
        List<String> newest = List.of();
        double newestTime = -1;
        for (String line : http.get("/metrics").body().split("\n")) {
            java.util.regex.Matcher m = p.matcher(line);
            if (m.matches() && Double.parseDouble(m.group(4)) >= newestTime) {
                newestTime = Double.parseDouble(m.group(4));
                newest = List.of(m.group(1), m.group(2), m.group(3));
            }
        }
        return newest;
    }

    /** Polls every 10 ms; the minute is a hang guard, not a speed claim. */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
