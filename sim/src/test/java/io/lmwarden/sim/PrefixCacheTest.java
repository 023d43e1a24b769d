package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PrefixCacheTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private SimCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimHttp start(SimProfile profile) {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(profile).withTimeScale(20));
        return new SimHttp(cluster.urls().get(0));
    }

    @Test
    void secondRequestWithSharedPrefixReportsItAsCached() {
        SimHttp http = start(SimProfile.named("tiny"));
        String prefix = SimHttp.text(4000, 1);
        int sharedTokens = http.post("/tokenize", "{\"prompt\":" + SimHttp.JSON.valueToTree("<|im_start|>user\n" + prefix)
                + "}").json().get("count").asInt();

        JsonNode first = http.post("/v1/chat/completions", SimHttp.chat(MODEL, prefix + SimHttp.text(400, 2), 4, false)).json();
        assertThat(first.at("/usage/prompt_tokens_details/cached_tokens").asInt()).isZero();

        double hitsBefore = http.metric("vllm:prefix_cache_hits_total");
        double queriesBefore = http.metric("vllm:prefix_cache_queries_total");
        JsonNode second = http.post("/v1/chat/completions", SimHttp.chat(MODEL, prefix + SimHttp.text(400, 3), 4, false)).json();
        int cached = second.at("/usage/prompt_tokens_details/cached_tokens").asInt();
        int prompt = second.at("/usage/prompt_tokens").asInt();

        assertThat(sharedTokens).isGreaterThan(900);
        assertThat(cached).isBetween(sharedTokens - 16, sharedTokens);
        assertThat(cached % 16).isZero();
        assertThat(http.metric("vllm:prefix_cache_hits_total") - hitsBefore).isEqualTo(cached);
        assertThat(http.metric("vllm:prefix_cache_queries_total") - queriesBefore).isEqualTo(prompt);
        assertThat(cluster.replicas().get(0).snapshot().prefixHits()).isEqualTo((long) cached);
    }

    @Test
    void nextConversationStepHitsOnThePreviousReplyToo() {
        SimHttp http = start(SimProfile.named("tiny"));
        String user = SimHttp.text(2000, 7);
        JsonNode first = http.post("/v1/chat/completions", SimHttp.chat(MODEL, user, 64, false)).json();
        String reply = first.at("/choices/0/message/content").asText();
        int firstPrompt = first.at("/usage/prompt_tokens").asInt();
        assertThat(first.at("/usage/completion_tokens").asInt()).isEqualTo(64);

        var body = SimHttp.JSON.createObjectNode();
        body.put("model", MODEL);
        body.put("max_tokens", 8);
        var messages = body.putArray("messages");
        messages.addObject().put("role", "user").put("content", user);
        messages.addObject().put("role", "assistant").put("content", reply);
        messages.addObject().put("role", "user").put("content", "now run the tests");
        JsonNode second = http.post("/v1/chat/completions", body.toString()).json();

        int cached = second.at("/usage/prompt_tokens_details/cached_tokens").asInt();
        // Everything up to the end of the reply was computed by the first request, generated tokens included.
        assertThat(cached).isGreaterThanOrEqualTo(firstPrompt + 64 - 16);
        assertThat(cached).isLessThan(second.at("/usage/prompt_tokens").asInt());
    }

    @Test
    void fillingTheCacheWithOtherPromptsEvictsAnOldPrefix() {
        SimHttp http = start(SimProfile.named("tiny").withKvBlocks(64));
        String old = SimHttp.text(1600, 11);
        http.post("/v1/chat/completions", SimHttp.chat(MODEL, old, 4, false));
        int warm = http.post("/v1/chat/completions", SimHttp.chat(MODEL, old, 4, false)).json()
                .at("/usage/prompt_tokens_details/cached_tokens").asInt();
        assertThat(warm).as("control: an immediate repeat hits").isGreaterThan(350);

        for (int i = 0; i < 4; i++) {
            http.post("/v1/chat/completions", SimHttp.chat(MODEL, SimHttp.text(1600, 100 + i), 4, false));
        }
        int afterEviction = http.post("/v1/chat/completions", SimHttp.chat(MODEL, old, 4, false)).json()
                .at("/usage/prompt_tokens_details/cached_tokens").asInt();
        assertThat(afterEviction).isZero();
    }
}
