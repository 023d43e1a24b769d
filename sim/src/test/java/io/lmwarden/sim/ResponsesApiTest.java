package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStatus;
import com.openai.models.responses.ResponseStreamEvent;
import com.openai.models.responses.ResponseUsage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** /v1/responses: vLLM's event sequence, usage with cached tokens, the official OpenAI SDK, and what is refused. */
class ResponsesApiTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private static SimCluster cluster;
    private static SimHttp http;
    private static OpenAIClient openai;

    @BeforeAll
    static void start() {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(20));
        http = new SimHttp(cluster.urls().get(0));
        openai = OpenAIOkHttpClient.builder().baseUrl(cluster.urls().get(0) + "/v1").apiKey("sk-sim").maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        openai.close();
        cluster.close();
    }

    @Test
    void sdkNonStreamingHasTextStatusAndCachedTokensOnRepeat() {
        ResponseCreateParams params = ResponseCreateParams.builder().model(MODEL)
                .instructions("You are a coding agent. " + SimHttp.text(1200, 61)).input("fix the build").maxOutputTokens(9L).build();
        openai.responses().create(params);
        Response r = openai.responses().create(params);
        r.validate();
        assertThat(r.id()).startsWith("resp_");
        assertThat(r.model().string()).contains(MODEL);
        // a reply cut at max_output_tokens is "incomplete", as vLLM reports it
        assertThat(r.status()).contains(ResponseStatus.INCOMPLETE);
        assertThat(r.incompleteDetails()).isPresent();
        String text = r.output().get(0).asMessage().content().get(0).asOutputText().text();
        assertThat(text).hasSize(36);
        ResponseUsage usage = r.usage().orElseThrow();
        assertThat(usage.outputTokens()).isEqualTo(9);
        assertThat(usage.totalTokens()).isEqualTo(usage.inputTokens() + 9);
        assertThat(usage.inputTokensDetails().cachedTokens()).isGreaterThan(usage.inputTokens() - 32).isGreaterThan(200);
    }

    @Test
    void sdkStreamingEndsWithCompletedAndUsage() {
        ResponseCreateParams params = ResponseCreateParams.builder().model(MODEL).input("stream please").maxOutputTokens(14L).build();
        StringBuilder text = new StringBuilder();
        List<String> kinds = new ArrayList<>();
        Response[] completed = {null};
        try (StreamResponse<ResponseStreamEvent> stream = openai.responses().createStreaming(params)) {
            stream.stream().forEach(e -> {
                e.validate();
                if (e.isCreated()) {
                    kinds.add("created");
                } else if (e.isOutputTextDelta()) {
                    kinds.add("delta");
                    text.append(e.asOutputTextDelta().delta());
                } else if (e.isCompleted()) {
                    kinds.add("completed");
                    completed[0] = e.asCompleted().response();
                }
            });
        }
        assertThat(kinds.get(0)).isEqualTo("created");
        assertThat(kinds.get(kinds.size() - 1)).isEqualTo("completed");
        assertThat(text).hasSize(56);
        assertThat(completed[0].usage().orElseThrow().outputTokens()).isEqualTo(14);
        assertThat(completed[0].output().get(0).asMessage().content().get(0).asOutputText().text()).isEqualTo(text.toString());
    }

    @Test
    void streamSendsVllmsEventSequenceWithSequenceNumbers() throws Exception {
        String body = "{\"model\":\"" + MODEL + "\",\"stream\":true,\"max_output_tokens\":6,\"input\":[{\"type\":\"message\","
                + "\"role\":\"developer\",\"content\":\"be brief\"},{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}]}";
        SimHttp.Stream s = http.stream("/v1/responses", body);
        assertThat(s.status()).isEqualTo(200);
        assertThat(s.complete()).isTrue();
        List<String> distinct = new ArrayList<>();
        for (String e : s.events()) {
            if (distinct.isEmpty() || !distinct.get(distinct.size() - 1).equals(e)) {
                distinct.add(e);
            }
        }
        assertThat(distinct).containsExactly("response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta", "response.output_text.done",
                "response.content_part.done", "response.output_item.done", "response.completed");
        for (int i = 0; i < s.data().size(); i++) {
            JsonNode event = SimHttp.JSON.readTree(s.data().get(i));
            assertThat(event.path("sequence_number").asInt()).isEqualTo(i);
            assertThat(event.path("type").asText()).isEqualTo(s.events().get(i));
        }
        JsonNode done = SimHttp.JSON.readTree(s.data().get(s.data().size() - 1)).path("response");
        assertThat(done.path("usage").path("input_tokens_details").has("cached_tokens")).isTrue();
        assertThat(done.path("usage").path("output_tokens").asInt()).isEqualTo(6);
    }

    @Test
    void previousResponseIdIsRefusedAsVllmWithoutAStoreDoes() {
        SimHttp.Reply r = http.post("/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"go on\",\"previous_response_id\":\"resp_abc\"}");
        assertThat(r.status()).isEqualTo(404);
        JsonNode error = r.json().path("error");
        assertThat(error.path("message").asText()).contains("resp_abc").contains("send the whole conversation in 'input'");
        assertThat(error.path("param").asText()).isEqualTo("previous_response_id");
        assertThat(http.get("/v1/responses/resp_abc").status()).isEqualTo(404);
        // and the server keeps serving
        assertThat(http.post("/v1/responses", "{\"model\":\"" + MODEL + "\",\"input\":\"hi\",\"max_output_tokens\":2}").status()).isEqualTo(200);
    }

    @Test
    void functionCallItemsRenderAndBadInputIsA400() {
        String items = "[{\"role\":\"user\",\"content\":\"list files\"},"
                + "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"shell\",\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\"},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"a.txt\"},"
                + "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[],\"encrypted_content\":\"xyz\"}]";
        assertThat(http.post("/v1/responses", "{\"model\":\"" + MODEL + "\",\"max_output_tokens\":2,\"input\":" + items + "}").status())
                .isEqualTo(200);
        SimHttp.Reply missing = http.post("/v1/responses", "{\"model\":\"" + MODEL + "\"}");
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.json().path("error").path("param").asText()).isEqualTo("input");
    }

    @Test
    void rolesTheApisDoNotHaveAreA400() {
        SimHttp.Reply responses = http.post("/v1/responses",
                "{\"model\":\"" + MODEL + "\",\"input\":[{\"role\":\"robot\",\"content\":\"beep\"}]}");
        assertThat(responses.status()).isEqualTo(400);
        assertThat(responses.json().path("error").path("message").asText()).contains("input[0].role").contains("robot");

        SimHttp.Reply messages = http.post("/v1/messages",
                "{\"model\":\"" + MODEL + "\",\"max_tokens\":4,\"messages\":[{\"role\":\"robot\",\"content\":\"beep\"}]}");
        assertThat(messages.status()).isEqualTo(400);
        assertThat(messages.json().path("type").asText()).isEqualTo("error");
        assertThat(messages.json().path("error").path("message").asText()).contains("messages.0.role").contains("robot");

        // vLLM maps Claude Code's non-standard "ctx"/"msg" roles to user, and takes a mid-list system turn
        assertThat(http.post("/v1/messages", "{\"model\":\"" + MODEL + "\",\"max_tokens\":4,\"messages\":["
                + "{\"role\":\"ctx\",\"content\":\"repo facts\"},{\"role\":\"system\",\"content\":\"be brief\"},"
                + "{\"role\":\"user\",\"content\":\"hi\"}]}").status()).isEqualTo(200);
    }
}
