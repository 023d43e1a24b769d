package io.lmwarden.sim;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorsAndFaultsTest {
    private static final String MODEL = SimOptions.DEFAULT_MODEL;
    private static SimCluster cluster;
    private static SimHttp http;

    @BeforeAll
    static void start() {
        cluster = SimCluster.start(SimOptions.defaults().withProfile(SimProfile.named("tiny")).withTimeScale(20));
        http = new SimHttp(cluster.urls().get(0));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @AfterEach
    void clearFaults() {
        http.delete("/sim/faults");
    }

    private static void assertNextRequestSucceeds() {
        SimHttp.Reply ok = http.post("/v1/chat/completions", SimHttp.chat(MODEL, "hello", 3, false));
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.json().at("/usage/completion_tokens").asInt()).isEqualTo(3);
    }

    @Test
    void malformedJsonGetsAnOpenAiStyle400() {
        SimHttp.Reply r = http.post("/v1/chat/completions", "{\"model\": ");
        assertThat(r.status()).isEqualTo(400);
        JsonNode e = r.json().get("error");
        assertThat(e.get("type").asText()).isEqualTo("BadRequestError");
        assertThat(e.get("code").asInt()).isEqualTo(400);
        assertThat(e.get("message").asText()).contains("Invalid JSON");
        assertThat(e.has("param")).isTrue();
        assertNextRequestSucceeds();
    }

    @Test
    void missingFieldIsNamed() {
        SimHttp.Reply r = http.post("/v1/chat/completions", "{\"model\":\"" + MODEL + "\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().at("/error/message").asText()).contains("messages");
        SimHttp.Reply a = http.post("/v1/messages", "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.json().get("type").asText()).isEqualTo("error");
        assertThat(a.json().at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(a.json().at("/error/message").asText()).contains("max_tokens");
        assertNextRequestSucceeds();
    }

    @Test
    void unknownModelGets404InBothStyles() {
        SimHttp.Reply r = http.post("/v1/chat/completions", SimHttp.chat("gpt-nope", "hi", 3, false));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json().at("/error/message").asText()).isEqualTo("The model `gpt-nope` does not exist.");
        assertThat(r.json().at("/error/type").asText()).isEqualTo("NotFoundError");
        SimHttp.Reply a = http.post("/v1/messages?beta=true",
                "{\"model\":\"claude-x\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThat(a.status()).isEqualTo(404);
        assertThat(a.json().at("/error/type").asText()).isEqualTo("not_found_error");
        assertThat(a.json().at("/error/message").asText()).contains("claude-x");
        assertNextRequestSucceeds();
    }

    @Test
    void overLongPromptsGetVllmsContextLengthErrors() {
        SimHttp.Reply tooLong = http.post("/v1/chat/completions", SimHttp.chat(MODEL, SimHttp.text(20000, 9), 10, false));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.json().at("/error/message").asText())
                .contains("maximum context length is 4096 tokens").contains("input tokens");
        SimHttp.Reply withOutput = http.post("/v1/chat/completions", SimHttp.chat(MODEL, SimHttp.text(12000, 9), 2000, false));
        assertThat(withOutput.status()).isEqualTo(400);
        assertThat(withOutput.json().at("/error/message").asText())
                .startsWith("'max_tokens' or 'max_completion_tokens' is too large: 2000.").contains("4096");
        assertNextRequestSucceeds();
    }

    @Test
    void failNextAnswersWithTheArmedStatus() {
        SimHttp.Reply armed = http.post("/sim/faults", "{\"failNext\":2,\"status\":503}");
        assertThat(armed.json().get("failNext").asInt()).isEqualTo(2);
        assertThat(http.post("/v1/chat/completions", SimHttp.chat(MODEL, "a", 3, false)).status()).isEqualTo(503);
        SimHttp.Reply anthropic = http.post("/v1/messages",
                "{\"model\":\"" + MODEL + "\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThat(anthropic.status()).isEqualTo(503);
        assertThat(anthropic.json().at("/error/type").asText()).isEqualTo("overloaded_error");
        assertNextRequestSucceeds();
    }

    @Test
    void stallNextDelaysTheFirstByte() {
        http.post("/sim/faults", "{\"stallNext\":1,\"stallMs\":400}");
        long t0 = System.nanoTime();
        SimHttp.Stream s = http.stream("/v1/chat/completions", SimHttp.chat(MODEL, "a", 3, true));
        assertThat((System.nanoTime() - t0) / 1e6).isGreaterThanOrEqualTo(400);
        assertThat(s.complete()).isTrue();
        assertThat(http.get("/sim/faults").json().get("stallNext").asInt()).isZero();
        assertNextRequestSucceeds();
    }

    @Test
    void heldRequestsWaitBeforeTheirFirstByteUntilReleased() throws Exception {
        long releasedBefore = http.get("/sim/faults").json().get("released").asLong();
        http.post("/sim/faults", "{\"holdNext\":2}");
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.List<java.util.concurrent.Future<SimHttp.Stream>> held = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                held.add(clients.submit(() -> http.stream("/v1/chat/completions", SimHttp.chat(MODEL, "a", 3, true))));
            }
            http.awaitHeld(2);
            assertThat(held).noneMatch(java.util.concurrent.Future::isDone);
            assertNextRequestSucceeds(); // the third is not held: holdNext was 2
            assertThat(held).as("still held after another request went through").noneMatch(java.util.concurrent.Future::isDone);
            JsonNode released = http.post("/sim/faults", "{\"release\":true}").json();
            assertThat(released.get("held").asInt()).isZero();
            assertThat(released.get("released").asLong()).isEqualTo(releasedBefore + 2);
            for (java.util.concurrent.Future<SimHttp.Stream> f : held) {
                assertThat(f.get().complete()).isTrue();
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void clearingFaultsReleasesHeldRequests() throws Exception {
        http.post("/sim/faults", "{\"holdNext\":5}");
        java.util.concurrent.ExecutorService client = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<SimHttp.Stream> held =
                    client.submit(() -> http.stream("/v1/chat/completions", SimHttp.chat(MODEL, "a", 3, true)));
            http.awaitHeld(1);
            http.delete("/sim/faults");
            assertThat(held.get().complete()).isTrue();
            assertThat(http.get("/sim/faults").json().get("holdNext").asInt()).isZero();
            assertNextRequestSucceeds();
        } finally {
            client.shutdownNow();
        }
    }

    /**
     * {@code holdEndNext}: a stream sends every event, then its end waits until released, as a network may deliver a
     * body's end after its last event (a client that stops reading at the completion event has left by then).
     */
    @Test
    void aHeldStreamSendsEveryEventAndEndsOnlyWhenReleased() throws Exception {
        http.post("/sim/faults", "{\"holdEndNext\":1}");
        java.util.concurrent.ExecutorService client = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<SimHttp.Stream> held = client.submit(() -> http.stream("/v1/chat/completions", SimHttp.chat(MODEL, "a", 3, true)));
            // The end is held only once the last event has been written.
            http.awaitHeld(1);
            assertThat(held.isDone()).as("the stream has not ended while its end is held").isFalse();
            assertThat(http.get("/sim/faults").json().get("holdEndNext").asInt()).isZero();

            SimHttp.Stream other = http.stream("/v1/chat/completions", SimHttp.chat(MODEL, "b", 3, true));
            assertThat(other.complete()).as("holdEndNext was 1: the next stream ends at once").isTrue();
            assertThat(held.isDone()).as("still held after another stream ended").isFalse();

            http.post("/sim/faults", "{\"release\":true}");
            SimHttp.Stream ended = held.get();
            assertThat(ended.status()).isEqualTo(200);
            assertThat(ended.complete()).isTrue();
            assertThat(ended.data()).last().isEqualTo("[DONE]");
            assertThat(http.get("/sim/faults").json().get("held").asInt()).isZero();
        } finally {
            client.shutdownNow();
            http.delete("/sim/faults");
        }
    }

    @Test
    void modelsStallDelaysTheModelListUntilCleared() {
        http.post("/sim/faults", "{\"modelsStallMs\":300}");
        for (int i = 0; i < 2; i++) {
            long t0 = System.nanoTime();
            SimHttp.Reply models = http.get("/v1/models");
            assertThat((System.nanoTime() - t0) / 1e6).as("ask %d", i).isGreaterThanOrEqualTo(300);
            assertThat(models.json().get("data").get(0).get("id").asText()).isEqualTo(MODEL);
        }
        http.delete("/sim/faults");
        assertThat(http.get("/sim/faults").json().get("modelsStallMs").asLong()).isZero();
    }

    @Test
    void dropNextClosesTheStreamAfterKChunksAndCountsAnAbort() {
        double aborts = abortCount();
        http.post("/sim/faults", "{\"dropNext\":1,\"afterChunks\":3}");
        String raw = rawExchange("/v1/chat/completions", SimHttp.chat(MODEL, "a", 2000, true));
        assertThat(raw).startsWith("HTTP/1.1 200");
        assertThat(raw.split("data: ", -1)).hasSize(1 + 3);
        assertThat(raw).doesNotContain("[DONE]");
        assertThat(abortCount()).isEqualTo(aborts + 1);
        assertThat(http.get("/sim/faults").json().get("dropNext").asInt()).isZero();
        assertNextRequestSucceeds();
    }

    @Test
    void unhealthyFlagsHealthAndDeleteClears() {
        assertThat(http.get("/health").status()).isEqualTo(200);
        http.post("/sim/faults", "{\"unhealthy\":true}");
        assertThat(http.get("/health").status()).isEqualTo(503);
        assertThat(http.get("/sim/faults").json().get("unhealthy").asBoolean()).isTrue();
        http.delete("/sim/faults");
        assertThat(http.get("/health").status()).isEqualTo(200);
        assertThat(http.post("/sim/faults", "{\"failNext\":-1}").status()).isEqualTo(400);
    }

    @Test
    void anInProcessSimulatorRefusesToCrashItsHostAndKeepsServing() {
        SimHttp.Reply r = http.post("/sim/faults", "{\"crash\":true}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().at("/error/message").asText()).contains("only a simulator process of its own");
        assertThat(r.json().at("/error/param").asText()).isEqualTo("crash");
        assertThat(http.post("/sim/faults", "{\"crash\":false}").status()).isEqualTo(400);
        assertNextRequestSucceeds();
    }

    @Test
    void clientDisconnectAbortsTheRequest() throws Exception {
        double aborts = abortCount();
        var client = java.net.http.HttpClient.newHttpClient();
        var req = java.net.http.HttpRequest.newBuilder(java.net.URI.create(cluster.urls().get(0) + "/v1/chat/completions"))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(SimHttp.chat(MODEL, "long one", 3000, true))).build();
        var resp = client.send(req, java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        try (var in = resp.body()) {
            assertThat(in.read(new byte[64])).isPositive();
        }
        // A hang guard only: the abort is counted as soon as the server sees the connection close.
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
        while (abortCount() < aborts + 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(abortCount()).as("aborts counted within 60 s of the client's disconnect").isEqualTo(aborts + 1);
        assertThat(cluster.replicas().get(0).snapshot().running()).isZero();
    }

    /** One HTTP/1.1 exchange over a plain socket, read until the server closes (the JDK client hides a cut stream). */
    private static String rawExchange(String path, String body) {
        java.net.URI uri = java.net.URI.create(cluster.urls().get(0));
        byte[] payload = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (var socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + payload.length + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static double abortCount() {
        return http.metrics().getOrDefault("vllm:request_success_total{model_name=\"" + MODEL
                + "\",engine=\"0\",finished_reason=\"abort\"}", -1.0);
    }
}
