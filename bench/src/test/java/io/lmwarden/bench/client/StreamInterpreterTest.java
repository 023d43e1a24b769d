package io.lmwarden.bench.client;

import io.lmwarden.bench.client.AgentApis;
import io.lmwarden.common.api.ApiDialect;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamInterpreterTest {

    @Test
    void anthropicStreamGivesTextUsageAndCompletion() {
        StreamInterpreter s = AgentApis.newInterpreter(ApiDialect.ANTHROPIC_MESSAGES);
        assertThat(s.onData("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":100,"
                + "\"cache_read_input_tokens\":900,\"cache_creation_input_tokens\":0,\"output_tokens\":1}}}")).isFalse();
        assertThat(s.onData("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")).isFalse();
        assertThat(s.onData("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ab\"}}")).isTrue();
        s.onData("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"cd\"}}");
        s.onData("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":2}}");
        assertThat(s.completed()).isFalse();
        s.onData("{\"type\":\"message_stop\"}");
        assertThat(s.replyText()).isEqualTo("abcd");
        assertThat(s.promptTokens()).isEqualTo(1000);
        assertThat(s.cachedTokens()).isEqualTo(900);
        assertThat(s.outputTokens()).isEqualTo(2);
        assertThat(s.completed()).isTrue();
        assertThat(s.error()).isNull();
    }

    @Test
    void anthropicErrorEventIsKept() {
        StreamInterpreter s = AgentApis.newInterpreter(ApiDialect.ANTHROPIC_MESSAGES);
        s.onData("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        assertThat(s.error()).isEqualTo("Overloaded");
    }

    @Test
    void openAiStreamGivesTextUsageAndDone() {
        StreamInterpreter s = AgentApis.newInterpreter(ApiDialect.OPENAI_CHAT);
        assertThat(s.onData("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}")).isFalse();
        assertThat(s.onData("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"xy\"}}]}")).isTrue();
        s.onData("{\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":1,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":32}}}");
        s.onData("[DONE]");
        assertThat(s.replyText()).isEqualTo("xy");
        assertThat(s.promptTokens()).isEqualTo(50);
        assertThat(s.cachedTokens()).isEqualTo(32);
        assertThat(s.outputTokens()).isEqualTo(1);
        assertThat(s.completed()).isTrue();
    }

    @Test
    void requestBodiesCarryTheWholeConversation() throws Exception {
        io.lmwarden.bench.workload.Conversation c = new io.lmwarden.bench.workload.Conversation("sys");
        c.addUser("u1");
        c.addAssistant("a1");
        c.addUser("u2");
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var anthropic = mapper.readTree(AgentApis.requestBody(ApiDialect.ANTHROPIC_MESSAGES, "m", 256, c));
        assertThat(anthropic.path("system").asText()).isEqualTo("sys");
        assertThat(anthropic.path("stream").asBoolean()).isTrue();
        assertThat(anthropic.path("max_tokens").asInt()).isEqualTo(256);
        assertThat(anthropic.path("messages")).hasSize(3);
        var openai = mapper.readTree(AgentApis.requestBody(ApiDialect.OPENAI_CHAT, "m", 256, c));
        assertThat(openai.path("messages")).hasSize(4);
        assertThat(openai.path("messages").get(0).path("role").asText()).isEqualTo("system");
        assertThat(openai.path("stream_options").path("include_usage").asBoolean()).isTrue();
    }
}
