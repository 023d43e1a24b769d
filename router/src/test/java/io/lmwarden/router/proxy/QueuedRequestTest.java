package io.lmwarden.router.proxy;

import io.lmwarden.router.config.AdmissionSettings;
import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests that must wait for admission, over real HTTP: one simulated replica (real time) whose KV
 * budget holds one session; a slow streaming step of session "blocker" is running, so any other session waits.
 * The official SDKs are given a 1 s read timeout: only the router's keep-alives let them survive a
 * wait of several seconds, and they must parse the stream that follows without noticing.
 */
class QueuedRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SDK_READ_TIMEOUT = Duration.ofSeconds(1);

    private static RouterUnderTest router(int queueMax) {
        return RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 1), c -> c.with(AdmissionSettings.ADMISSION, true).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS).with(AdmissionSettings.KV_BUDGET, 0.0001)
                .with(AdmissionSettings.QUEUE_KEEP_ALIVE, Duration.ofMillis(100)).with(AdmissionSettings.RESIDENCY_IDLE, Duration.ofSeconds(2)).with(AdmissionSettings.QUEUE_MAX, queueMax)
                .with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofSeconds(60)));
    }

    /** A streaming step of ~100 output tokens (~2 s at real time) that holds the only replica's budget. */
    private static CompletableFuture<List<String>> blocker(RouterUnderTest router) {
        String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":100,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hold the replica for a while\"}]}";
        CompletableFuture<List<String>> f = CompletableFuture.supplyAsync(() -> new Http().streamLines(router.url() + "/v1/messages",
                body, Map.of("X-Claude-Code-Session-Id", "blocker", "anthropic-version", "2023-06-01")));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!new Http().get(router.url() + "/api/replicas").body().contains("\"residentSessions\":1") && System.nanoTime() < deadline) {
            RouterUnderTest.sleep(20);
        }
        return f;
    }

    private static double queueWaitCount(RouterUnderTest router) {
        for (String line : new Http().get(router.url() + "/metrics").body().split("\n")) {
            if (line.startsWith("lmw_queue_wait_seconds_count")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    @Test
    void aQueuedOpenAiStreamIsKeptAliveAndTheSdkReadsItWhole() throws Exception {
        try (RouterUnderTest router = router(16)) {
            // The client first: built after the blocker, a slow start on a loaded machine could outlast the blocker's residency.
            OpenAIClient openai = OpenAIOkHttpClient.builder().baseUrl(router.url() + "/v1").apiKey("sk-test").maxRetries(0)
                    .timeout(com.openai.core.Timeout.builder().read(SDK_READ_TIMEOUT).request(Duration.ofSeconds(60)).build()).build();
            CompletableFuture<List<String>> blocking = blocker(router);
            try {
                ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(AgentSession.MODEL)
                        .addUserMessage("wait your turn").maxCompletionTokens(10).user("queued-openai").build();
                long start = System.nanoTime();
                StringBuilder text = new StringBuilder();
                try (var stream = openai.chat().completions().createStreaming(params)) {
                    stream.stream().forEach((ChatCompletionChunk chunk) -> {
                        chunk.validate();
                        chunk.choices().forEach(ch -> ch.delta().content().ifPresent(text::append));
                    });
                }
                double waitedSeconds = (System.nanoTime() - start) / 1e9;
                assertThat(text).isNotEmpty();
                assertThat(waitedSeconds).as("waited longer than the SDK's read timeout").isGreaterThan(1.5);
                assertThat(queueWaitCount(router)).isEqualTo(1.0);
            } finally {
                openai.close();
            }
            assertThat(blocking.get(30, TimeUnit.SECONDS)).contains("event: message_stop");
        }
    }

    @Test
    void aQueuedAnthropicStreamGetsPingsAndTheSdkReadsItWhole() throws Exception {
        try (RouterUnderTest router = router(16)) {
            AnthropicClient anthropic = AnthropicOkHttpClient.builder().baseUrl(router.url()).apiKey("sk-ant-test").maxRetries(0)
                    .timeout(com.anthropic.core.Timeout.builder().read(SDK_READ_TIMEOUT).request(Duration.ofSeconds(60)).build()).build();
            CompletableFuture<List<String>> blocking = blocker(router);
            try {
                MessageCreateParams params = MessageCreateParams.builder().model(AgentSession.MODEL).maxTokens(10)
                        .system("You are a queued agent.").addUserMessage("wait your turn").build();
                List<String> types = new ArrayList<>();
                long start = System.nanoTime();
                try (StreamResponse<RawMessageStreamEvent> stream = anthropic.messages().createStreaming(params)) {
                    stream.stream().forEach(e -> {
                        e.validate();
                        if (e.isMessageStart()) {
                            types.add("message_start");
                        } else if (e.isMessageStop()) {
                            types.add("message_stop");
                        }
                    });
                }
                assertThat(types).containsExactly("message_start", "message_stop");
                assertThat((System.nanoTime() - start) / 1e9).isGreaterThan(1.5);
            } finally {
                anthropic.close();
            }
            blocking.get(30, TimeUnit.SECONDS);

            // The same wait seen raw: pings first, then the router's comment, then the engine's events.
            CompletableFuture<List<String>> again = blocker(router);
            String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":5,\"stream\":true,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"raw and queued\"}]}";
            List<String> lines = new Http().streamLines(router.url() + "/v1/messages", body,
                    Map.of("X-Claude-Code-Session-Id", "raw-queued", "anthropic-version", "2023-06-01"));
            again.get(30, TimeUnit.SECONDS);
            int firstPing = lines.indexOf("event: ping");
            int comment = indexOfPrefix(lines, ": lmw replica=sim-0");
            assertThat(firstPing).isZero();
            assertThat(lines.subList(0, comment).stream().filter("event: ping"::equals).count()).isGreaterThan(5);
            assertThat(lines.get(comment)).containsPattern("queue-wait-ms=\\d{3,}");
            assertThat(indexOfPrefix(lines, "event: message_start")).isGreaterThan(comment);
            assertThat(lines).contains("event: message_stop");
        }
    }

    private static int indexOfPrefix(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void aFullQueueAnswersInEachApisShapeWithRetryAfterAndSendsNothingUpstream() throws Exception {
        try (RouterUnderTest router = router(0)) {
            CompletableFuture<List<String>> blocking = blocker(router);
            Http http = new Http();
            Http.Reply openai = http.post(router.url() + "/v1/chat/completions", "{\"model\":\"" + AgentSession.MODEL
                    + "\",\"max_tokens\":5,\"user\":\"turned-away\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of());
            assertThat(openai.status()).isEqualTo(429);
            assertThat(Integer.parseInt(openai.header("retry-after"))).isBetween(1, 600);
            JsonNode oe = JSON.readTree(openai.body()).path("error");
            assertThat(oe.path("code").asInt()).isEqualTo(429);
            assertThat(oe.path("message").asText()).contains("queueMax");

            Http.Reply anthropic = http.post(router.url() + "/v1/messages", "{\"model\":\"" + AgentSession.MODEL
                            + "\",\"max_tokens\":5,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                    Map.of("X-Claude-Code-Session-Id", "turned-away-too", "anthropic-version", "2023-06-01"));
            assertThat(anthropic.status()).isEqualTo(529);
            assertThat(anthropic.header("retry-after")).isNotNull();
            JsonNode ae = JSON.readTree(anthropic.body());
            assertThat(ae.path("type").asText()).isEqualTo("error");
            assertThat(ae.path("error").path("type").asText()).isEqualTo("overloaded_error");

            blocking.get(30, TimeUnit.SECONDS);
            // Only the blocker reached the engine; the router kept serving.
            String replicas = http.get(router.url() + "/api/replicas").body();
            assertThat(replicas).contains("\"requests\":1,");
            assertThat(http.get(router.url() + "/metrics").body()).contains("lmw_admission_rejected_total{reason=\"queue_full\"} 2.0");
        }
    }
}
