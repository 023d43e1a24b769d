package io.lmwarden.router.placement;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.UpstreamSettings;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The router's engine priority reaches a simulated vLLM run with {@code --scheduling-policy priority}: of two steps
 * waiting in the engine's queue at once, a newcomer's runs before that of a session that has had thousands of tokens of
 * service, though the heavy one arrived first. The engine is held by the simulator's fault API and let run exactly one
 * step ({@code stepEngines}), so what its scheduler chose is read whatever the machine's speed.
 */
class EnginePriorityOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private RouterUnderTest router;

    @AfterEach
    void stop() {
        if (router != null) {
            router.close();
        }
    }

    /** A step streamed in the background; {@code started} once its first token arrived. */
    private record Streaming(AtomicBoolean started, CompletableFuture<Integer> status) {
    }

    @Test
    void aNewcomersStepRunsBeforeAHeavySessionsThatCameFirst() {
        assertThat(firstToStart(true)).isEqualTo("light");
    }

    @Test
    void withoutTheRoutersPriorityTheEngineTakesThemInArrivalOrder() {
        assertThat(firstToStart(false)).isEqualTo("heavy");
    }

    /** Which of the two steps the engine took first. */
    private String firstToStart(boolean enginePriority) {
        router = RouterUnderTest.start(SimPool.start(1, SimProfile.named(SimProfile.A4000_QWEN3_4B).withMaxNumSeqs(1), 20,
                        o -> o.withPriorityScheduling(true)),
                c -> c.with(PlacementSettings.POLICY, "affinity").with(UpstreamSettings.ENGINE_PRIORITY, enginePriority));
        String sim = router.sims().url(0);
        // The heavy session's first step: ~6k uncached prompt tokens of service, engine priority 1 from now on.
        String heavyFirst = text(new Random(1), 24_000);
        Http.Reply first = HTTP.post(router.url() + "/v1/chat/completions", chat(heavyFirst, 8, false), Map.of("X-Session-Id", "heavy"));
        assertThat(first.status()).isEqualTo(200);
        // The router learns a step's service as it ends, just after the client has the answer; the session's step log
        // hears of the end after admission does, so once the log has the step, its service counts.
        Await.until("the heavy step in the session log", () -> loggedSteps("heavy") == 1, () -> "steps " + loggedSteps("heavy"));

        assertThat(HTTP.post(sim + "/sim/faults", "{\"pauseEngines\":true}", Map.of()).status()).isEqualTo(200);
        try {
            Streaming heavy = stream(chat(heavyFirst + " and then " + text(new Random(2), 400), 32, true), "heavy");
            Await.until("the heavy step in the engine's queue", () -> waiting() == 1, () -> "waiting " + waiting());
            Streaming light = stream(chat(text(new Random(3), 1200), 32, true), "light");
            Await.until("both steps in the engine's queue", () -> waiting() == 2, () -> "waiting " + waiting());

            // One step: max_num_seqs 1, so the scheduler admits exactly one of them and prefills it.
            assertThat(HTTP.post(sim + "/sim/faults", "{\"stepEngines\":1}", Map.of()).status()).isEqualTo(200);
            Await.until("one step's first token", () -> heavy.started().get() || light.started().get(),
                    () -> "waiting " + waiting());
            String chosen = light.started().get() ? "light" : "heavy";
            assertThat(heavy.started().get() && light.started().get()).as("only one was admitted").isFalse();

            HTTP.post(sim + "/sim/faults", "{\"pauseEngines\":false}", Map.of());
            assertThat(heavy.status().join()).isEqualTo(200);
            assertThat(light.status().join()).isEqualTo(200);
            return chosen;
        } finally {
            HTTP.delete(sim + "/sim/faults");
        }
    }

    private int loggedSteps(String session) {
        Http.Reply r = HTTP.get(router.url() + "/api/sessions/" + session);
        try {
            return r.status() == 200 ? JSON.readTree(r.body()).path("steps").size() : 0;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private int waiting() {
        return router.sims().engines(0).get(0).waiting();
    }

    private Streaming stream(String body, String session) {
        AtomicBoolean started = new AtomicBoolean();
        HttpRequest request = HttpRequest.newBuilder(URI.create(router.url() + "/v1/chat/completions"))
                .header("Content-Type", "application/json").header("X-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        CompletableFuture<Integer> status = CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofLines()).thenApply(r -> {
            r.body().forEach(line -> {
                if (line.startsWith("data: {")) {
                    started.set(true);
                }
            });
            return r.statusCode();
        });
        return new Streaming(started, status);
    }

    private static String chat(String content, int maxTokens, boolean stream) {
        ObjectNode body = JSON.createObjectNode().put("model", "Qwen/Qwen3-4B-Instruct-2507").put("max_tokens", maxTokens)
                .put("stream", stream);
        body.putArray("messages").addObject().put("role", "user").put("content", content);
        return body.toString();
    }

    private static String text(Random r, int chars) {
        StringBuilder sb = new StringBuilder(chars + 16);
        while (sb.length() < chars) {
            sb.append("word").append(r.nextInt(100_000)).append(' ');
        }
        return sb.toString();
    }
}
