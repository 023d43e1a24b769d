package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.lmwarden.sim.tokens.ChunkTokenizer;
import io.lmwarden.sim.tokens.FillerText;
import io.lmwarden.sim.tokens.PromptRenderer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class PromptTokensTest {
    @Test
    void equalPrefixesGiveEqualTokensAndDivergeWhereTheTextDoes() {
        int[] a = ChunkTokenizer.tokenize("shared prefix text / then A");
        int[] b = ChunkTokenizer.tokenize("shared prefix text / then B");
        int firstDiff = Arrays.mismatch(a, b);
        assertThat(firstDiff).isEqualTo(6);
        assertThat(a).hasSize(7);
        assertThat(ChunkTokenizer.count("<|im_start|>user\nhi<|im_end|>")).isEqualTo(5);
    }

    @Test
    void fillerTextTokenizesBackToExactlyItsTokens() {
        for (int n : new int[] {1, 2, 7, 256}) {
            String t = FillerText.of(n, n);
            assertThat(t).hasSize(4 * n);
            assertThat(ChunkTokenizer.count(t)).isEqualTo(n);
        }
    }

    @Test
    void billingHeaderBlockIsDroppedAndSystemBlocksRender() throws Exception {
        JsonNode withHeader = SimHttp.JSON.readTree("""
                {"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.3; cc_entrypoint=cli;"},
                           {"type":"text","text":"You are Claude Code."}],
                 "tools":[{"name":"Read","input_schema":{"type":"object"}}],
                 "messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{}}]},
                             {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"p":"a"}}]},
                             {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"file"}]}]}
                """);
        JsonNode without = SimHttp.JSON.readTree(withHeader.toString().replace(
                "{\"type\":\"text\",\"text\":\"x-anthropic-billing-header: cc_version=2.1.3; cc_entrypoint=cli;\"},", ""));
        String rendered = PromptRenderer.renderMessages(withHeader);
        assertThat(rendered).isEqualTo(PromptRenderer.renderMessages(without));
        assertThat(rendered).startsWith("<|im_start|>system\nYou are Claude Code.")
                .contains("<tools>").contains("<|image_pad|>").contains("<tool_call>").contains("<tool_response>\nfile")
                .endsWith("<|im_start|>assistant\n");
    }

    /** How fast it tokenizes is the bench's {@code PromptTokenization}; here, that a 100 KB body comes out whole. */
    @Test
    void aHundredKilobyteBodyTokenizesToItsTokenCount() {
        String words = SimHttp.text(100_000, 3);
        int[] ids = ChunkTokenizer.tokenize(words);
        assertThat(ids.length).isBetween(24_000, 30_000).isEqualTo(ChunkTokenizer.count(words));
        assertThat(ChunkTokenizer.tokenize(FillerText.of(25_000, 3))).hasSize(25_000);
    }
}
