package io.lmwarden.router.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23, item 4, over HTTP against two simulated replicas whose KV budget holds one session each: a request
 * that waited in the queue, was admitted, and then got a 503 from its replica is retried within the budget too.
 * Its only other replica holds a running resident, so the retry waits for room there instead of joining it (a
 * retry used to go straight to the other replica, past the budget).
 */
class QueuedRetryBudgetTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Http HTTP = new Http();

    private static String body(int maxTokens, String text) {
        return "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":" + maxTokens + ",\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    }

    private static JsonNode replicas(RouterUnderTest router) throws Exception {
        return JSON.readTree(HTTP.get(router.url() + "/api/replicas").body());
    }

    private static JsonNode row(JsonNode replicas, String id) {
        for (JsonNode r : replicas.path("replicas")) {
            if (r.path("id").asText().equals(id)) {
                return r;
            }
        }
        throw new AssertionError("no replica " + id + " in " + replicas);
    }

    private static JsonNode await(RouterUnderTest router, String what, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode r = replicas(router);
        while (!until.test(r)) {
            assertThat(System.nanoTime()).as("waiting for %s; last /api/replicas: %s", what, r).isLessThan(deadline);
            RouterUnderTest.sleep(20);
            r = replicas(router);
        }
        return r;
    }

    private static double retriesFrom(RouterUnderTest router, String replica) {
        String prefix = "lmw_retries_total{failed_replica=\"" + replica + "\"}";
        for (String line : HTTP.get(router.url() + "/metrics").body().split("\n")) {
            if (line.startsWith(prefix)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /** A long stream on a socket of its own, whose client leaves when told: the way to end a resident's step at will. */
    private static Socket holdStream(RouterUnderTest router, String session) throws Exception {
        URI u = URI.create(router.url());
        Socket s = new Socket(u.getHost(), u.getPort());
        byte[] b = body(4000, "hold the replica until the test lets go").getBytes(StandardCharsets.UTF_8);
        OutputStream out = s.getOutputStream();
        out.write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nanthropic-version: 2023-06-01\r\n"
                + "X-Claude-Code-Session-Id: " + session + "\r\nContent-Length: " + b.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        assertThat(in.readLine()).as("the holder's status line").isEqualTo("HTTP/1.1 200 OK");
        return s;
    }

    @Test
    void aRetryOfAQueuedThenAdmittedRequestStaysInsideTheKvBudget() throws Exception {
        // A budget of next to nothing: a replica with a resident takes no other (an empty one takes any session).
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(2, SimProfile.defaultProfile(), 1),
                c -> c.with(AdmissionSettings.ADMISSION, true).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS).with(AdmissionSettings.KV_BUDGET, 0.0001)
                        .with(AdmissionSettings.RESIDENCY_IDLE, Duration.ofSeconds(2)).with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofSeconds(120))
                        // Keep-alives at once: the replica and decision then arrive as a comment in the stream.
                        .with(AdmissionSettings.QUEUE_KEEP_ALIVE, Duration.ofMillis(100)))) {
            // The holder: resident and streaming on one replica until the test lets go.
            Socket holder = holdStream(router, "holder");
            JsonNode r = await(router, "the holder resident", x -> x.toString().contains("\"residentSessions\":1"));
            String held = row(r, "sim-0").path("residentSessions").asInt() == 1 ? "sim-0" : "sim-1";
            String other = held.equals("sim-0") ? "sim-1" : "sim-0";
            int otherIndex = other.equals("sim-0") ? 0 : 1;

            // A short step holds the other replica for about a second; the next request there answers 503.
            CompletableFuture<List<String>> shortStep = CompletableFuture.supplyAsync(() -> HTTP.streamLines(router.url() + "/v1/messages",
                    body(40, "a short step"), Map.of("X-Claude-Code-Session-Id", "short", "anthropic-version", "2023-06-01")));
            await(router, "the short step resident", x -> row(x, other).path("residentSessions").asInt() == 1);
            // Resident is admission's word, said before the step is sent: the 503 is armed only once the replica's engine
            // has the step, or the short step itself would take it (ci62: it did, and its retry waited on the full replica).
            Await.until("the short step in the engine", () -> router.sims().running(otherIndex) == 1 || shortStep.isDone(),
                    () -> "running " + router.sims().running(otherIndex));
            assertThat(HTTP.post(router.sims().url(otherIndex) + "/sim/faults", "{\"failNext\":1,\"status\":503}", Map.of()).status())
                    .isEqualTo(200);

            // No room anywhere: the request queues, is admitted where the short step was once it is done and has
            // paused, gets the 503 there, and is retried: the holder's replica is the only one left, and it is full.
            CompletableFuture<List<String>> queued = CompletableFuture.supplyAsync(() -> HTTP.streamLines(router.url() + "/v1/messages",
                    body(10, "queued, then admitted, then retried"), Map.of("X-Claude-Code-Session-Id", "retried", "anthropic-version", "2023-06-01")));
            shortStep.get(60, TimeUnit.SECONDS);
            JsonNode waitingAgain = await(router, "the retry back in the queue",
                    x -> retriesFrom(router, other) >= 1 && x.path("queue").path("length").asInt() == 1);
            // Inside the budget: the holder's replica has its one resident, not the retry as a second.
            assertThat(row(waitingAgain, held).path("residentSessions").asInt()).as("%s", waitingAgain).isEqualTo(1);
            assertThat(queued).isNotDone();

            // The holder leaves; its replica idles; the retry takes its room.
            holder.close();
            List<String> lines = queued.get(60, TimeUnit.SECONDS);
            assertThat(lines).anyMatch(l -> l.startsWith(": lmw replica=" + held + " decision=FALLBACK"));
            assertThat(lines).contains("event: message_stop");
            assertThat(row(replicas(router), held).path("residentSessions").asInt()).isLessThanOrEqualTo(1);
        }
    }
}
