package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** vLLM's {@code return_token_ids} on generation requests and the chat form of {@code /tokenize}. */
class ReturnTokenIdsTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private static SimCluster cluster;
    private static SimHttp http;

    @BeforeAll
    static void start() {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(20));
        http = new SimHttp(cluster.urls().get(0));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static String chatBody(boolean stream) {
        var body = SimHttp.JSON.createObjectNode();
        body.put("model", MODEL);
        body.put("max_tokens", 12);
        body.put("stream", stream);
        body.put("return_token_ids", true);
        body.putArray("messages").addObject().put("role", "user").put("content", "list the files\nthen run the tests");
        return body.toString();
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }

    private static List<Integer> tokenizeChat(boolean addGenerationPrompt) {
        var body = SimHttp.JSON.createObjectNode();
        body.put("model", MODEL);
        body.put("add_generation_prompt", addGenerationPrompt);
        body.putArray("messages").addObject().put("role", "user").put("content", "list the files\nthen run the tests");
        JsonNode r = http.post("/tokenize", body.toString()).json();
        assertThat(r.get("count").asInt()).isEqualTo(r.get("tokens").size());
        assertThat(r.get("max_model_len").asInt()).isEqualTo(4096);
        return ints(r.get("tokens"));
    }

    @Test
    void aChatReplyCarriesThePromptIdsOfTokenizeAndItsOwnIds() {
        JsonNode r = http.post("/v1/chat/completions", chatBody(false)).json();
        assertThat(ints(r.get("prompt_token_ids"))).isEqualTo(tokenizeChat(true));
        assertThat(r.at("/choices/0/token_ids")).hasSize(r.at("/usage/completion_tokens").asInt());
    }

    @Test
    void aStreamSendsThePromptIdsInItsFirstChunkAndTheReplyIdsAsDeltas() {
        SimHttp.Stream s = http.stream("/v1/chat/completions", chatBody(true));
        List<JsonNode> chunks = new ArrayList<>();
        for (String d : s.data()) {
            if (!d.equals("[DONE]")) {
                chunks.add(new SimHttp.Reply(200, d).json());
            }
        }
        assertThat(ints(chunks.get(0).get("prompt_token_ids"))).isEqualTo(tokenizeChat(true));
        assertThat(chunks.subList(1, chunks.size())).noneMatch(c -> c.has("prompt_token_ids"));
        int ids = chunks.stream().mapToInt(c -> c.at("/choices/0/token_ids").size()).sum();
        assertThat(ids).isEqualTo(12);
    }

    @Test
    void withoutTheGenerationPromptTheChatTemplateEndsAfterTheLastMessage() {
        List<Integer> with = tokenizeChat(true);
        List<Integer> without = tokenizeChat(false);
        assertThat(without).isNotEmpty();
        assertThat(with.subList(0, without.size())).isEqualTo(without);
        assertThat(with.size()).isGreaterThan(without.size());
    }

    @Test
    void aCompletionCarriesBothListsOnItsChoice() {
        JsonNode r = http.post("/v1/completions", "{\"model\":\"" + MODEL + "\",\"prompt\":\"abcdefgh\",\"max_tokens\":3,"
                + "\"return_token_ids\":true}").json();
        JsonNode tokenized = http.post("/tokenize", "{\"prompt\":\"abcdefgh\"}").json();
        assertThat(ints(r.at("/choices/0/prompt_token_ids"))).isEqualTo(ints(tokenized.get("tokens")));
        assertThat(r.at("/choices/0/token_ids")).hasSize(3);
        assertThat(r.has("prompt_token_ids")).isFalse();
    }
}
