package io.lmwarden.router.pool;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an endpoint's {@code /v1/models} says (the cards vLLM writes: every served name with the same {@code root}, a
 * LoRA adapter with its own root and a {@code parent}), and the one key per model the pool derives from all of them.
 */
class ServedModelsTest {

    /** vLLM's answer for {@code --served-model-name qwen claude-opus-4-8} plus one LoRA adapter on the base model. */
    private static final String VLLM = """
            {"object":"list","data":[
              {"id":"qwen","object":"model","created":1,"owned_by":"vllm","root":"/models/Qwen3-4B","parent":null,"max_model_len":32768},
              {"id":"claude-opus-4-8","object":"model","created":1,"owned_by":"vllm","root":"/models/Qwen3-4B","parent":null},
              {"id":"sql-lora","object":"model","created":1,"owned_by":"vllm","root":"/adapters/sql","parent":"qwen"}]}
            """;

    @Test
    void namesOfOneWeightsAreAliasesOfItsFirstNameAndALoraIsAModelOfItsOwn() {
        ServedModels served = ServedModels.parse(VLLM);
        assertThat(served.known()).isTrue();
        assertThat(served.names()).containsExactly("qwen", "claude-opus-4-8", "sql-lora");
        assertThat(served.modelOf()).containsExactlyInAnyOrderEntriesOf(Map.of("qwen", "qwen", "claude-opus-4-8", "qwen", "sql-lora", "sql-lora"));
        assertThat(served.serves("claude-opus-4-8")).isTrue();
        assertThat(served.serves("claude-sonnet-5-5")).isFalse();
        assertThat(ServedModels.UNKNOWN.serves("anything")).as("an unread list serves every name").isTrue();
    }

    @Test
    void anAnswerThatIsNoModelListSaysWhatIsWrong() {
        assertThatThrownBy(() -> ServedModels.parse("<html>login</html>")).hasMessageContaining("did not answer JSON");
        assertThatThrownBy(() -> ServedModels.parse("{\"object\":\"list\"}")).hasMessageContaining("'data' array");
        assertThatThrownBy(() -> ServedModels.parse("{\"data\":[{\"object\":\"model\"}]}")).hasMessageContaining("no card with an 'id'");
        assertThat(ServedModels.parse("{\"data\":[]}").names()).as("an engine serving nothing serves nothing").isEmpty();
    }

    @Test
    void everyAliasOfAModelMapsToOneKeyAcrossEndpointsWhoseListsOverlap() {
        ServedModels a = ServedModels.parse(cards("qwen", "claude-opus-4-8"));
        ServedModels b = ServedModels.parse(cards("qwen", "claude-sonnet-5-5"));
        ServedModels c = ServedModels.parse(cards("claude-sonnet-5-5", "claude-haiku-5-5"));
        ServedModels other = ServedModels.parse("{\"data\":[{\"id\":\"llama\",\"root\":\"/models/llama\",\"parent\":null}]}");
        Map<String, String> keys = ModelKeys.of(List.of(a, b, c, other));
        assertThat(keys).containsExactlyInAnyOrderEntriesOf(Map.of("qwen", "qwen", "claude-opus-4-8", "qwen", "claude-sonnet-5-5", "qwen",
                "claude-haiku-5-5", "qwen", "llama", "llama"));
        // A later endpoint that links two models the earlier ones kept apart joins them under the earlier key.
        Map<String, String> joined = ModelKeys.of(List.of(other, c, ServedModels.parse(cards("llama", "claude-haiku-5-5"))));
        assertThat(joined.values()).containsOnly("llama");
    }

    /** Served names of one model, the first one first, as vLLM lists them. */
    private static String cards(String... names) {
        StringBuilder sb = new StringBuilder("{\"object\":\"list\",\"data\":[");
        for (int i = 0; i < names.length; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"id\":\"").append(names[i]).append("\",\"root\":\"/models/Qwen3-4B\",\"parent\":null}");
        }
        return sb.append("]}").toString();
    }
}
