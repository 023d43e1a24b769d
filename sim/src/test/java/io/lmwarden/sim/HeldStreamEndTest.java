package io.lmwarden.sim;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code holdEndNext}: a stream sends every event, then its end waits until released, as a network may deliver a
 * body's end after its last event (a client that stops reading at the completion event has left by then).
 */
class HeldStreamEndTest {
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

    @Test
    void aHeldStreamSendsEveryEventAndEndsOnlyWhenReleased() throws Exception {
        http.post("/sim/faults", "{\"holdEndNext\":1}");
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<SimHttp.Stream> held = client.submit(() -> http.stream("/v1/chat/completions", SimHttp.chat(MODEL, "a", 3, true)));
            // The end is held only once the last event has been written.
            awaitHeld(1);
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

    /** Polls the simulator's own count; the deadline only turns a hang into a failure, it bounds no speed. */
    private static void awaitHeld(int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (http.get("/sim/faults").json().get("held").asInt() < n) {
            assertThat(System.nanoTime()).as("%d stream ends held within 60 s", n).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
