package io.lmwarden.router.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Asking the engine for token ids on the way in, and taking them out of the answer on the way back. */
class TokenIdsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String ask(String body) {
        byte[] out = TokenIdsRequest.ask(body.getBytes(StandardCharsets.UTF_8));
        return out == null ? null : new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void theFieldGoesFirstIntoTheTopLevelObjectAndTheBodyStaysValid() throws Exception {
        JsonNode asked = JSON.readTree(ask("  {\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"{\\\"x\\\":1}\"}]}"));
        assertThat(asked.path("return_token_ids").asBoolean()).isTrue();
        assertThat(asked.path("messages").path(0).path("content").asText()).isEqualTo("{\"x\":1}");
        assertThat(JSON.readTree(ask("{ }")).path("return_token_ids").asBoolean()).isTrue();
    }

    @Test
    void aBodyThatNamesTheFieldOrIsNoObjectIsLeftAlone() {
        assertThat(ask("{\"model\":\"m\",\"return_token_ids\":false}")).isNull();
        assertThat(ask("[1,2]")).isNull();
        // Inside a string the name has escaped quotes: not the field.
        assertThat(ask("{\"messages\":[{\"content\":\"say \\\"return_token_ids\\\"\"}]}")).isNotNull();
    }

    @Test
    void aStreamLosesTheIdsEvenAcrossChunkBoundariesAndKeepsEverythingElse() throws Exception {
        String first = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"token_ids\":[]}],"
                + "\"prompt_token_ids\":[11,12,13,14]}\n\n";
        String second = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"token_ids\":[7,8]}]}\n\n";
        String done = "data: [DONE]\n\n";
        String all = first + second + done;
        TokenIdsFilter f = new TokenIdsFilter(true, true);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < all.length(); i += 7) { // chunks that cut lines anywhere
            out.append(f.chunk(Buffer.buffer(all.substring(i, Math.min(all.length(), i + 7)))).toString());
        }
        out.append(f.end().toString());
        assertThat(out.toString()).doesNotContain("token_ids").contains("data: [DONE]\n\n");
        String[] events = out.toString().split("\n\n");
        assertThat(JSON.readTree(events[1].substring(6)).path("choices").path(0).path("delta").path("content").asText()).isEqualTo("hi");
        assertThat(f.promptTokenIds()).containsExactly(11, 12, 13, 14);
        assertThat(f.outputTokenIds()).containsExactly(7, 8);
    }

    @Test
    void aJsonBodyIsHeldWholeWhenStrippedAndPassesAsItIsWhenTheClientAsked() throws Exception {
        String body = "{\"id\":\"c\",\"choices\":[{\"index\":0,\"message\":{\"content\":\"ok\"},\"token_ids\":[5,6]}],"
                + "\"prompt_token_ids\":[1,2,3],\"usage\":{\"prompt_tokens\":3}}";
        TokenIdsFilter strip = new TokenIdsFilter(true, false);
        assertThat(strip.chunk(Buffer.buffer(body)).length()).isZero();
        JsonNode out = JSON.readTree(strip.end().toString());
        assertThat(out.has("prompt_token_ids")).isFalse();
        assertThat(out.path("choices").path(0).has("token_ids")).isFalse();
        assertThat(out.path("usage").path("prompt_tokens").asInt()).isEqualTo(3);
        assertThat(strip.promptTokenIds()).containsExactly(1, 2, 3);

        TokenIdsFilter keep = new TokenIdsFilter(false, false);
        assertThat(keep.chunk(Buffer.buffer(body)).toString()).isEqualTo(body);
        assertThat(keep.end().length()).isZero();
        assertThat(keep.promptTokenIds()).containsExactly(1, 2, 3);
    }

    @Test
    void anUnreadableAnswerPassesUnchangedAndGivesNoIds() {
        String broken = "data: {\"prompt_token_ids\":[1,2,\n\n";
        TokenIdsFilter f = new TokenIdsFilter(true, true);
        String out = f.chunk(Buffer.buffer(broken)).toString() + f.end().toString();
        assertThat(out).isEqualTo(broken);
        assertThat(f.promptTokenIds()).isNull();
    }
}
