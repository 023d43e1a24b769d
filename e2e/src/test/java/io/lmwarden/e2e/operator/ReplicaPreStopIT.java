package io.lmwarden.e2e.operator;

import io.lmwarden.common.process.ChildProcess;
import io.lmwarden.e2e.support.SimulatorJar;
import io.lmwarden.operator.dependent.ReplicaDrain;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replica pods' preStop waits, exactly as the operator writes them ({@link ReplicaDrain}), against a real
 * simulator process with a streaming request in flight: the simulated replica's (AwaitIdle from the simulator
 * jar) and the vLLM pod's (the Python script, when python3 is installed), both watching the same request. Each
 * must still be waiting while the engine decodes, return once the request has ended, and give up at its deadline.
 */
@Tag("processes")
class ReplicaPreStopIT {
    private static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    /** 100 ms per decode step (stepBaseMs) and 100 tokens: the request decodes for 10 s or more. */
    private static final int MAX_TOKENS = 100;
    /**
     * By this token the request has decoded for about 9 s: past the preStop's settle time and quiet reads
     * ({@link ReplicaDrain#SETTLE_SECONDS} + {@link ReplicaDrain#QUIET_READS} x {@link ReplicaDrain#INTERVAL_SECONDS},
     * 8 s), by which a wait that took the busy engine for idle would have returned.
     */
    private static final int CHECK_AT_TOKEN = 90;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private static SimulatorJar sim;
    private static int port;
    private static boolean python;

    @BeforeAll
    static void startSimulator() throws Exception {
        sim = SimulatorJar.start(1, List.of("--output-length", "fixed", "--set", "stepBaseMs=100"));
        port = sim.port(0);
        python = pythonPresent();
    }

    @AfterAll
    static void stopSimulator() {
        if (sim != null) {
            sim.close();
        }
    }

    @Test
    void bothPreStopsWaitForTheStreamAndReturnWhenItEnds() throws Exception {
        AtomicInteger tokens = new AtomicInteger();
        CompletableFuture<String> stream = stream(tokens);
        awaitRunning();
        try (ChildProcess java = ChildProcess.command(simulatorPreStop(Duration.ofMinutes(2))).name("preStop").start();
             ChildProcess vllm = python ? ChildProcess.command(ReplicaDrain.vllmPreStop(port, Duration.ofMinutes(2))).name("vllm-preStop").start() : null) {
            awaitTokens(tokens, CHECK_AT_TOKEN, stream);
            assertThat(java.alive()).as("the simulator's preStop still waiting while the engine decodes (token %d of %d)", tokens.get(), MAX_TOKENS).isTrue();
            if (vllm != null) {
                assertThat(vllm.alive()).as("the vLLM pod's preStop still waiting while the engine decodes (token %d of %d)", tokens.get(), MAX_TOKENS).isTrue();
            }

            assertThat(stream.get(2, TimeUnit.MINUTES)).as("the stream completed").endsWith("[DONE]");
            assertThat(tokens.get()).isEqualTo(MAX_TOKENS);
            assertThat(java.waitFor(Duration.ofSeconds(60))).as("the simulator's preStop returns once the engine is idle, with status 0").isZero();
            assertThat(java.output()).contains("engine idle");
            if (vllm != null) {
                assertThat(vllm.waitFor(Duration.ofSeconds(60))).as("the vLLM pod's preStop returns once the engine is idle, with status 0").isZero();
            }
        }
    }

    @Test
    void bothGiveUpAtTheirDeadlineWithTheRequestStillRunning() throws Exception {
        AtomicInteger tokens = new AtomicInteger();
        CompletableFuture<String> stream = stream(tokens);
        awaitRunning();
        try (ChildProcess java = ChildProcess.command(simulatorPreStop(Duration.ofSeconds(3))).name("preStop").start();
             ChildProcess vllm = python ? ChildProcess.command(ReplicaDrain.vllmPreStop(port, Duration.ofSeconds(3))).name("vllm-preStop").start() : null) {
            assertThat(java.waitFor(Duration.ofSeconds(60))).isZero();
            assertThat(stream.isDone()).as("the simulator's preStop gave up with the request still streaming (token %d)", tokens.get()).isFalse();
            assertThat(java.output()).contains("deadline reached");
            if (vllm != null) {
                assertThat(vllm.waitFor(Duration.ofSeconds(60))).isZero();
                assertThat(stream.isDone()).as("the vLLM pod's preStop gave up with the request still streaming (token %d)", tokens.get()).isFalse();
            }
        }
        assertThat(stream.get(2, TimeUnit.MINUTES)).endsWith("[DONE]");
    }

    /** The simulator container's preStop, run by the test's own JVM as the image's java. */
    private static List<String> simulatorPreStop(Duration drainTimeout) {
        List<String> command = new ArrayList<>(ReplicaDrain.simulatorPreStop(System.getProperty("lmw.sim.jar"), port, drainTimeout));
        command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return command;
    }

    /** One streaming chat request; counts output tokens as they arrive (the simulator writes 4 characters per token);
     *  completes with the last data line. */
    private static CompletableFuture<String> stream(AtomicInteger tokens) {
        String body = "{\"model\":\"" + MODEL + "\",\"stream\":true,\"max_tokens\":" + MAX_TOKENS
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"write a long story about a lighthouse\"}]}";
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        AtomicReference<String> last = new AtomicReference<>("");
        return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofLines()).thenApply(response -> {
            assertThat(response.statusCode()).isEqualTo(200);
            try (Stream<String> lines = response.body()) {
                lines.filter(l -> l.startsWith("data:")).forEach(l -> {
                    String data = l.substring("data:".length()).trim();
                    if (!data.equals("[DONE]")) {
                        tokens.addAndGet(content(data).length() / 4);
                    }
                    last.set(l);
                });
            }
            return last.get();
        });
    }

    private static String content(String chunk) {
        try {
            return JSON.readTree(chunk).path("choices").path(0).path("delta").path("content").asText("");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Until the engine reports the request as running: from then on the preStop has something to wait for. */
    private static void awaitRunning() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            if (metrics.lines().anyMatch(l -> l.startsWith("vllm:num_requests_running{") && !l.endsWith(" 0.0") && !l.endsWith(" 0"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the request never showed as running");
    }

    private static void awaitTokens(AtomicInteger tokens, int count, CompletableFuture<String> stream) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (tokens.get() < count) {
            if (System.nanoTime() > deadline || stream.isDone()) {
                throw new AssertionError("only " + tokens.get() + " tokens arrived" + (stream.isDone() ? ": " + stream.get() : ""));
            }
            Thread.sleep(20);
        }
    }

    private static boolean pythonPresent() {
        boolean present;
        try {
            present = ChildProcess.run(List.of("python3", "--version"), null, Duration.ofSeconds(30)).exitValue() == 0;
        } catch (java.io.UncheckedIOException e) {
            present = false;
        }
        if (!present) {
            System.out.println("SKIPPED the vLLM pod's preStop checks: no python3 on PATH (the vLLM image has it); the simulator's are run");
        }
        return present;
    }
}
