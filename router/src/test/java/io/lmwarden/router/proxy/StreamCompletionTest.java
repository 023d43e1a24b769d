package io.lmwarden.router.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Behaviour 6 of issue 10: a stream is complete when its completion event arrived, whatever the
 * optional spaces of SSE and JSON: decided from parsed events, for every API.
 */
class StreamCompletionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void streamsWithoutTheOptionalSpaceAfterTheFieldColonCountAsComplete() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            assertThat(http.post(router.sims().url(0) + "/sim/faults", "{\"compactNext\":2}", Map.of()).status()).isEqualTo(200);

            String chat = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                    + "\"max_tokens\":6,\"messages\":[{\"role\":\"user\",\"content\":\"compact chat\"}]}";
            List<String> chatLines = http.streamLines(router.url() + "/v1/chat/completions", chat, Map.of("X-Session-Id", "compact-chat"));
            assertThat(chatLines).contains("data:[DONE]");

            String messages = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"max_tokens\":6,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"compact messages\"}]}";
            List<String> messageLines = http.streamLines(router.url() + "/v1/messages", messages, Map.of("X-Session-Id", "compact-msg"));
            assertThat(messageLines).contains("event:message_stop");

            for (String session : List.of("compact-chat", "compact-msg")) {
                JsonNode step = JSON.readTree(http.get(router.url() + "/api/sessions/" + session).body()).at("/steps/0");
                assertThat(step.get("completed").asBoolean()).as("%s completed", session).isTrue();
                assertThat(step.get("outputTokens").asLong()).as("%s usage read", session).isEqualTo(6);
            }
            assertThat(http.get(router.url() + "/metrics").body())
                    .contains("lmw_streams_total{completed=\"true\",replica=\"sim-0\"} 2.0")
                    // Counters are born at 0 (so rate() sees their first event): none may have moved.
                    .contains("lmw_streams_total{completed=\"false\",replica=\"sim-0\"} 0.0");
        }
    }

    /**
     * The Responses API's completion event as servers write it: the event's own type after the whole
     * (nested, typed) response object, and Python's JSON separators with a space after each colon.
     */
    @Test
    void aResponsesStreamIsCompleteByItsTopLevelEventTypeWhateverTheSpacing() {
        ResponseObserver spaced = new ResponseObserver(ApiDialect.OPENAI_RESPONSES);
        spaced.accept(Buffer.buffer("event: response.output_text.delta\r\ndata: {\"type\": \"response.output_text.delta\", \"delta\": \"hi\"}\r\n\r\n"));
        assertThat(spaced.completed()).isFalse();
        spaced.accept(Buffer.buffer("event: response.completed\ndata: {\"response\": {\"output\": [{\"type\": \"message\"}], "
                + "\"usage\": {\"input_tokens\": 12, \"output_tokens\": 3}}, \"sequence_number\": 9, \"type\": \"response.completed\"}\n\n"));
        assertThat(spaced.completed()).isTrue();
        assertThat(spaced.outputTokens()).isEqualTo(3);

        // Without the event field, the data's own top-level type decides; a nested "type" never does.
        ResponseObserver dataOnly = new ResponseObserver(ApiDialect.OPENAI_RESPONSES);
        dataOnly.accept(Buffer.buffer("data: {\"item\": {\"type\": \"response.completed\"}, \"type\": \"response.output_item.done\"}\n\n"));
        assertThat(dataOnly.completed()).isFalse();
        dataOnly.accept(Buffer.buffer("data:{\"type\" : \"response.completed\",\"response\":{}}\n\n"));
        assertThat(dataOnly.completed()).isTrue();

        // Text that merely mentions a completion marker is not one.
        ResponseObserver chat = new ResponseObserver(ApiDialect.OPENAI_CHAT);
        chat.accept(Buffer.buffer("data: {\"choices\":[{\"delta\":{\"content\":\"data: [DONE] \\\"type\\\":\\\"response.completed\\\"\"}}]}\n\n"));
        assertThat(chat.completed()).isFalse();
    }
}
