package io.lmwarden.router.proxy;

import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PriorityRequestTest {

    @Test
    void chatAndCompletionsGetThePriorityFirstInTheirBody() {
        assertThat(PriorityRequest.apply(Buffer.buffer(" {\"model\":\"m\"}"), ApiDialect.OPENAI_CHAT, 3).toString())
                .isEqualTo(" {\"priority\":3,\"model\":\"m\"}");
        assertThat(PriorityRequest.apply(Buffer.buffer("{}"), ApiDialect.OPENAI_COMPLETIONS, -2).toString())
                .isEqualTo("{\"priority\":-2}");
    }

    @Test
    void aClientsOwnPriorityOtherApisAndNonObjectsAreLeftAlone() {
        String own = "{\"priority\":9,\"model\":\"m\"}";
        assertThat(PriorityRequest.apply(Buffer.buffer(own), ApiDialect.OPENAI_CHAT, 3).toString()).isEqualTo(own);
        String anthropic = "{\"model\":\"m\"}";
        assertThat(PriorityRequest.apply(Buffer.buffer(anthropic), ApiDialect.ANTHROPIC_MESSAGES, 3).toString()).isEqualTo(anthropic);
        assertThat(PriorityRequest.apply(Buffer.buffer("[1]"), ApiDialect.OPENAI_CHAT, 3).toString()).isEqualTo("[1]");
    }
}
