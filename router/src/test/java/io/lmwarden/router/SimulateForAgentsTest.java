package io.lmwarden.router;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.models.responses.EasyInputMessage;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseInputItem;
import com.openai.models.responses.ResponseStreamEvent;
import io.lmwarden.router.config.ConfigResolver;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.DiscoverySettings;
import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.config.SimulationSettings;
import io.lmwarden.router.testing.Http;
import io.lmwarden.sim.AgentModelNames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --simulate} as agents meet it: the OpenAI SDK's Responses client in Codex's shape (a {@code session-id}
 * header, the whole conversation re-sent as input items, streaming), Claude Code's default model name, and
 * replies that end with {@code stop} under an agent's large max_tokens.
 */
class SimulateForAgentsTest {
    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ReplicaSource replicas;
    private static LmWardenRouter router;
    private static OpenAIClient openai;
    private static final Http http = new Http();

    @BeforeAll
    static void start() {
        // As RouterMain does for --simulate: the replica source starts the simulated replicas.
        RouterConfig config = ConfigResolver.resolve(Map.of(DiscoverySettings.SIMULATE, "3", ServerSettings.PORT, "0",
                ServerSettings.HOST, "127.0.0.1", SimulationSettings.SIM_PROFILE, "tiny", SimulationSettings.TIME_SCALE, "20"), Map.of(), Map.of());
        replicas = ReplicaSource.forConfig(config);
        router = LmWardenRouter.start(replicas.configure(config));
        openai = OpenAIOkHttpClient.builder().baseUrl(router.url() + "/v1").apiKey("dummy").maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        router.close();
        replicas.close();
    }

    @Test
    void codexStyleResponsesSessionStaysOnOneReplicaAndHitsItsCache() throws Exception {
        String session = "0199a3c1-codex-session-1";
        List<ResponseInputItem> input = new ArrayList<>();
        Set<String> replicas = new HashSet<>();
        List<Long> cached = new ArrayList<>();
        for (int turn = 1; turn <= 3; turn++) {
            input.add(ResponseInputItem.ofEasyInputMessage(EasyInputMessage.builder().role(EasyInputMessage.Role.USER)
                    .content("turn " + turn + ": " + "please refactor the module and run the tests again ".repeat(20)).build()));
            ResponseCreateParams params = ResponseCreateParams.builder().model(MODEL)
                    .instructions("You are Codex, a coding agent. " + "Follow the repository's conventions. ".repeat(30))
                    .inputOfResponse(input).store(false).putAdditionalHeader("session-id", session).build();
            Response completed = null;
            HttpResponseFor<StreamResponse<ResponseStreamEvent>> raw = openai.responses().withRawResponse().createStreaming(params);
            replicas.addAll(raw.headers().values("X-LMW-Replica"));
            try (StreamResponse<ResponseStreamEvent> stream = raw.parse()) {
                for (ResponseStreamEvent e : (Iterable<ResponseStreamEvent>) stream.stream()::iterator) {
                    e.validate();
                    if (e.isCompleted()) {
                        completed = e.asCompleted().response();
                    }
                }
            }
            assertThat(completed).as("turn %d ended with response.completed", turn).isNotNull();
            cached.add(completed.usage().orElseThrow().inputTokensDetails().cachedTokens());
            // Codex re-sends the reply items it got, so the next turn's prompt extends this one
            completed.output().forEach(item -> input.add(ResponseInputItem.ofResponseOutputMessage(item.asMessage())));
        }
        assertThat(replicas).hasSize(1);
        assertThat(cached.get(1)).isGreaterThan(300);
        assertThat(cached.get(2)).isGreaterThan(cached.get(1));
        // The session lives in the namespace of the tenant the API key names.
        String tenant = "key-" + io.lmwarden.router.session.SessionKey.displayHash("dummy").substring(2);
        JsonNode log = JSON.readTree(http.get(router.url() + "/api/sessions/" + tenant + "%2F" + session).body());
        assertThat(log.path("source").asText()).isEqualTo("session-id");
        assertThat(log.path("steps")).hasSize(3);
        log.path("steps").forEach(step -> assertThat(step.path("completed").asBoolean()).isTrue());
    }

    @Test
    void claudeCodesDefaultModelNameIsServedAndRepliesStopBeforeALargeMaxTokens() throws Exception {
        JsonNode models = JSON.readTree(http.get(router.url() + "/v1/models").body()).path("data");
        List<String> ids = new ArrayList<>();
        models.forEach(m -> ids.add(m.path("id").asText()));
        assertThat(ids.get(0)).isEqualTo(MODEL);
        assertThat(ids).containsAll(AgentModelNames.CLAUDE_CODE_DEFAULTS);

        int stops = 0;
        for (int i = 0; i < 5; i++) {
            Http.Reply r = http.post(router.url() + "/v1/messages?beta=true",
                    "{\"model\":\"claude-opus-5-5\",\"max_tokens\":3000,\"messages\":[{\"role\":\"user\",\"content\":\"hello " + i + "\"}]}",
                    Map.of("X-Claude-Code-Session-Id", "cc-" + i));
            assertThat(r.status()).isEqualTo(200);
            JsonNode body = JSON.readTree(r.body());
            assertThat(body.path("model").asText()).isEqualTo("claude-opus-5-5");
            assertThat(body.path("usage").path("output_tokens").asInt()).isLessThan(3000);
            if (body.path("stop_reason").asText().equals("end_turn")) {
                stops++;
            }
        }
        assertThat(stops).isEqualTo(5);
    }

    /**
     * KV events are on by default: each simulated replica binds its own ports at 0 and the router is listed what they
     * bound, so every replica's cache view comes from its events. The deadline only turns a hang into a failure.
     */
    @Test
    void everySimulatedReplicasCacheViewComesFromItsKvEvents() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            JsonNode rows = JSON.readTree(http.get(router.adminUrl() + "/api/replicas").body()).path("replicas");
            List<String> views = new ArrayList<>();
            rows.forEach(r -> views.add(r.path("cacheView").asText()));
            if (views.size() == 3 && views.stream().allMatch("events"::equals)) {
                return;
            }
            List<String> seen = new ArrayList<>();
            rows.forEach(r -> seen.add(r.path("id").asText() + ": " + r.path("cacheView").asText() + ", events "
                    + r.path("kvEvents").path("state").asText()));
            assertThat(System.nanoTime()).as("every replica's cache view from its events within 60 s: %s", seen)
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
