package io.lmwarden.common.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiDialectTest {

    @Test
    void aPathNamesItsApiAndItsShapes() {
        assertThat(ApiDialect.forPath("/v1/messages")).isEqualTo(ApiDialect.ANTHROPIC_MESSAGES);
        assertThat(ApiDialect.forPath("/v1/messages/count_tokens")).isEqualTo(ApiDialect.ANTHROPIC_COUNT_TOKENS);
        assertThat(ApiDialect.forPath("/v1/responses")).isEqualTo(ApiDialect.OPENAI_RESPONSES);
        assertThat(ApiDialect.forPath("/v1/models")).as("the engine's own endpoints have none").isNull();
        assertThat(ApiDialect.ANTHROPIC_COUNT_TOKENS.anthropic()).isTrue();
        assertThat(ApiDialect.ANTHROPIC_COUNT_TOKENS.generates()).as("count_tokens only counts").isFalse();
        assertThat(ApiDialect.OPENAI_COMPLETIONS.anthropic()).isFalse();
    }

    @Test
    void shortNamesAsPeopleWriteThem() {
        assertThat(ApiDialect.parse(" Anthropic ")).isEqualTo(ApiDialect.ANTHROPIC_MESSAGES);
        assertThat(ApiDialect.parse("openai")).isEqualTo(ApiDialect.OPENAI_CHAT);
        assertThat(ApiDialect.parse("responses")).isEqualTo(ApiDialect.OPENAI_RESPONSES);
        assertThatThrownBy(() -> ApiDialect.parse("grpc")).hasMessageContaining("got 'grpc'");
    }
}
