package io.lmwarden.router.hardening;

import io.lmwarden.router.config.UpstreamSettings;
import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.SimProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight streaming sessions run back to back through the router while four simulated replicas, each
 * its own process, suffer one fault after another: a 503 burst, a stall before the first byte, drops
 * mid-stream and before any byte, a health flap, a frozen process (SIGSTOP) and a killed one
 * ({@code kill -9}). No request may be lost before its first byte (those are retried elsewhere), and
 * every stream cut short must end with an error event in the API's shape, never a silent truncation.
 */
@Tag("fault")
class FaultInjectionTest {

    private static final Http HTTP = new Http();

    /** How one stream ended, as its client saw it. */
    enum Outcome { COMPLETED, ERROR_EVENT, LOST_BEFORE_FIRST_BYTE, TRUNCATED_SILENTLY }

    @Test
    void faultsDuringEightStreamingSessionsLoseNothingBeforeTheFirstByteAndExplainEveryCut() throws Exception {
        List<SimProcess> sims = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sims.add(SimProcess.start("tiny", 5, 2000 + i));
        }
        List<String> entries = IntStream.range(0, 4).mapToObj(i -> "sim-" + i + "=" + sims.get(i).url()).toList();
        LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(entries).with(ServerSettings.HOST, "127.0.0.1")
                .withScrapeInterval(Duration.ofMillis(200)).with(UpstreamSettings.STREAM_IDLE_TIMEOUT, Duration.ofMillis(5000)));
        ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> badEnds = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> clients = new ArrayList<>();
        try {
            waitReady(router);
            for (int s = 0; s < 8; s++) {
                int session = s;
                Thread t = new Thread(() -> {
                    int step = 0;
                    while (running.get()) {
                        Outcome o = stream(router.url(), session, step++, badEnds);
                        outcomes.add(o);
                        pause(100);
                    }
                }, "session-" + s);
                t.start();
                clients.add(t);
            }
            Thread.sleep(1500);
            fault(sims.get(0), "{\"failNext\":3,\"status\":503}");
            Thread.sleep(1500);
            Thread.sleep(1000);
            fault(sims.get(1), "{\"stallNext\":2,\"stallMs\":8000}");
            Thread.sleep(2500);
            fault(sims.get(2), "{\"dropNext\":2,\"afterChunks\":3}");
            Thread.sleep(1500);
            fault(sims.get(3), "{\"dropNext\":2,\"afterChunks\":0}");
            Thread.sleep(1500);
            fault(sims.get(0), "{\"unhealthy\":true}");
            Thread.sleep(1500);
            fault(sims.get(0), "{\"unhealthy\":false}");
            Thread.sleep(1000);
            long frozenAt = System.nanoTime();
            sims.get(1).freeze();
            long leftRotationMs = waitUntilNotReady(router, "sim-1", frozenAt);
            Thread.sleep(1500);
            sims.get(1).thaw();
            Thread.sleep(1500);
            sims.get(2).kill9();
            Thread.sleep(2500);
            running.set(false);
            for (Thread t : clients) {
                t.join(30_000);
            }
            System.out.printf("fault injection: %d streams, %s; frozen replica left rotation after %d ms; bad ends: %s%n", outcomes.size(),
                    summary(outcomes), leftRotationMs, badEnds);
            assertThat(leftRotationMs).as("a frozen replica leaves rotation within about a second").isLessThan(2500);
        } finally {
            running.set(false);
            router.close();
            sims.forEach(SimProcess::close);
        }
        assertThat(outcomes).as("streams served").filteredOn(o -> o == Outcome.COMPLETED).hasSizeGreaterThan(40);
        assertThat(outcomes).as("requests lost before their first byte: %s", badEnds).doesNotContain(Outcome.LOST_BEFORE_FIRST_BYTE);
        assertThat(outcomes).as("streams cut without an error event: %s", badEnds).doesNotContain(Outcome.TRUNCATED_SILENTLY);
    }

    private static Outcome stream(String url, int session, int step, ConcurrentLinkedQueue<String> badEnds) {
        String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"stream\":true,\"max_tokens\":24,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"session " + session + " step " + step + " "
                + "context ".repeat(40) + "\"}]}";
        List<String> lines;
        try {
            lines = HTTP.streamLines(url + "/v1/chat/completions", body, Map.of("X-Session-Id", "fault-" + session));
        } catch (RuntimeException e) {
            badEnds.add("exception " + e.getMessage());
            return Outcome.LOST_BEFORE_FIRST_BYTE;
        }
        List<String> data = lines.stream().filter(l -> l.startsWith("data:")).toList();
        if (data.contains("data: [DONE]")) {
            return Outcome.COMPLETED;
        }
        if (!data.isEmpty() && data.get(data.size() - 1).startsWith("data: {\"error\":{\"message\":")) {
            if (data.size() == 1) {
                badEnds.add("error before any token: " + data.get(0));
                return Outcome.LOST_BEFORE_FIRST_BYTE;
            }
            return Outcome.ERROR_EVENT;
        }
        badEnds.add(String.join("\\n", lines.subList(Math.max(0, lines.size() - 3), lines.size())));
        return data.isEmpty() ? Outcome.LOST_BEFORE_FIRST_BYTE : Outcome.TRUNCATED_SILENTLY;
    }

    /** An agent's think time between steps, which also keeps a loaded test machine from starving the replicas. */
    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String summary(ConcurrentLinkedQueue<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder();
        for (Outcome o : Outcome.values()) {
            sb.append(o).append('=').append(outcomes.stream().filter(x -> x == o).count()).append(' ');
        }
        return sb.toString().trim();
    }

    private static void fault(SimProcess sim, String json) {
        assertThat(HTTP.post(sim.url() + "/sim/faults", json, Map.of()).status()).isEqualTo(200);
    }

    private static void waitReady(LmWardenRouter router) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            String body = HTTP.get(router.url() + "/api/replicas").body();
            if (!body.contains("\"metricsFresh\":false") && body.contains("\"metricsFresh\":true")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("replicas not ready");
    }

    private static long waitUntilNotReady(LmWardenRouter router, String id, long sinceNanos) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            String body = HTTP.get(router.url() + "/api/replicas").body();
            int at = body.indexOf("\"id\":\"" + id + "\"");
            if (at >= 0 && body.startsWith("\"ready\":false", body.indexOf("\"ready\"", at))) {
                return (System.nanoTime() - sinceNanos) / 1_000_000;
            }
            Thread.sleep(25);
        }
        return Long.MAX_VALUE;
    }
}
