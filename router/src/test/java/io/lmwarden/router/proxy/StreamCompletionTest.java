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

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
     * Codex reads a Responses stream up to {@code response.completed} and closes the connection without waiting for
     * the body's end. When that end comes after the last event (here held by the simulator until released), the
     * client has left first: it had the whole answer, so the step is a completed 200, not a 499 client cancel.
     */
    @Test
    void aClientThatLeavesAtTheCompletionEventHadTheWholeAnswer() throws Exception {
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 20), c -> c)) {
            Http http = new Http();
            String faults = router.sims().url(0) + "/sim/faults";
            assertThat(http.post(faults, "{\"holdEndNext\":1}", Map.of()).status()).isEqualTo(200);
            String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"store\":false,\"max_output_tokens\":8,"
                    + "\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}]}";
            String events = readUpToCompletionAndLeave(router.url(), body, "codex-leaves");
            assertThat(events).contains("event: response.completed");

            JsonNode step = awaitStep(http, router.url() + "/api/sessions/codex-leaves");
            assertThat(JSON.readTree(http.get(faults).body()).get("held").asInt())
                    .as("the stream's end is still held: the client left before it").isEqualTo(1);
            assertThat(step.get("status").asInt()).as("step %s", step).isEqualTo(200);
            assertThat(step.get("outcome").asText()).as("step %s", step).isEqualTo("ok");
            assertThat(step.get("completed").asBoolean()).as("step %s", step).isTrue();
            assertThat(step.get("outputTokens").asLong()).as("usage read from the completion event").isEqualTo(8);
            assertThat(http.get(router.url() + "/metrics").body())
                    .contains("lmw_streams_total{completed=\"true\",replica=\"sim-0\"} 1.0");
            assertThat(http.delete(faults).status()).isEqualTo(200);
        }
    }

    /** POSTs a Responses stream over a socket of its own, reads it up to the completion event's end, and closes. */
    private static String readUpToCompletionAndLeave(String baseUrl, String json, String sessionId) throws IOException {
        URI u = URI.create(baseUrl);
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket(u.getHost(), u.getPort())) {
            s.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nSession-Id: " + sessionId
                    + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = new BufferedInputStream(s.getInputStream());
            String head = readLine(in);
            assertThat(head).startsWith("HTTP/1.1 200");
            while (!readLine(in).isEmpty()) {
                // headers
            }
            ByteArrayOutputStream events = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(readLine(in).trim(), 16);
                assertThat(size).as("the stream ended before its completion event: %s", events).isPositive();
                events.write(in.readNBytes(size));
                readLine(in);
                String sofar = events.toString(StandardCharsets.UTF_8);
                if (sofar.contains("\"type\":\"response.completed\"") && sofar.endsWith("\n\n")) {
                    return sofar;
                }
            }
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /** The session's one step, once the router has recorded how its exchange ended. */
    private static JsonNode awaitStep(Http http, String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Http.Reply r = http.get(url);
            if (r.status() == 200) {
                JsonNode steps = JSON.readTree(r.body()).get("steps");
                if (steps.size() > 0) {
                    return steps.get(0);
                }
            }
            RouterUnderTest.sleep(10);
        }
        throw new AssertionError("the router recorded no step at " + url + " within 60 s");
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
