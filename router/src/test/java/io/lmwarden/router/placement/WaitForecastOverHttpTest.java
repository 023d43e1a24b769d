package io.lmwarden.router.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimFaults;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait forecast measured over real HTTP: one simulated replica whose KV budget holds one session, so newcomers
 * leave the queue one at a time. A first wave of concurrent sessions queues behind a step the replica holds in flight
 * before anything is known of the queue's pace; a second wave queues the same way once it is known. Every newcomer of
 * the second wave is forecast, admitted, and settled: {@code /api/replicas} {@code queue.forecast} counts them and
 * shows realised / predicted, and the Prometheus histograms hold the same outcomes.
 */
class WaitForecastOverHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WAVE = 5;

    @Test
    void everyQueuedNewcomerIsForecastAndSettledAndTheApiAndMetricsShowTheError() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(2 * WAVE + 2);
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 10),
                c -> c.with(AdmissionSettings.ADMISSION, true).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS)
                        .with(AdmissionSettings.KV_BUDGET, 0.0001).with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofMinutes(10)))) {
            Http http = new Http();
            SimFaults faults = SimFaults.of(router.sims(), 0);

            wave(router, http, faults, clients, "first");
            JsonNode learnt = forecast(http, router);
            assertThat(learnt.path("predictions").asLong()).as("nothing was known of the pace: %s", learnt).isZero();
            assertThat(learnt.path("unpredicted").asLong()).isGreaterThanOrEqualTo(WAVE - 1);
            assertThat(learnt.path("newcomersAdmittedPerMinute").asDouble()).as("the pace, once newcomers left the queue").isPositive();

            wave(router, http, faults, clients, "second");
            JsonNode f = forecast(http, router);
            assertThat(f.path("failFast").asBoolean()).isTrue();
            long predictions = f.path("predictions").asLong();
            assertThat(predictions).as("the second wave's newcomers were forecast: %s", f).isGreaterThanOrEqualTo(WAVE - 1);
            assertThat(f.path("admitted").asLong()).as("each settled admitted (none timed out, none left)").isEqualTo(predictions);
            assertThat(f.path("timedOut").asLong()).isZero();
            assertThat(f.path("withdrawn").asLong()).isZero();
            assertThat(f.path("correction").asDouble()).isPositive();
            JsonNode recent = f.path("recent");
            assertThat(recent.path("outcomes").asLong()).isEqualTo(predictions);
            assertThat(recent.path("realisedOverPredictedMedian").asDouble()).isPositive();
            assertThat(recent.path("realisedOverPredictedP90").asDouble()).isGreaterThanOrEqualTo(recent.path("realisedOverPredictedMedian").asDouble());
            assertThat(recent.path("predictedMedianSeconds").asDouble()).isPositive();
            assertThat(recent.path("realisedMedianSeconds").asDouble()).isPositive();
            assertThat(f.path("pastTimeout").path("queued").asLong()).isZero();

            String metrics = http.get(router.url() + "/metrics").body();
            for (String histogram : List.of("lmw_queue_forecast_ratio_percent", "lmw_queue_forecast_predicted_seconds", "lmw_queue_forecast_realised_seconds")) {
                assertThat(count(metrics, histogram, "admitted")).as(histogram).isEqualTo(predictions);
                assertThat(count(metrics, histogram, "timed_out")).as(histogram).isZero();
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /**
     * A wave of concurrent sessions: the replica holds the first one's step in flight while the others arrive and
     * queue; then it lets go, and each session takes two steps. Every step succeeds.
     */
    private static void wave(RouterUnderTest router, Http http, SimFaults faults, ExecutorService clients, String name) throws Exception {
        faults.holdNext(1);
        List<CompletableFuture<Void>> sessions = new ArrayList<>();
        sessions.add(session(router, http, clients, name + "-0"));
        faults.awaitHeld(1);
        for (int i = 1; i < WAVE; i++) {
            sessions.add(session(router, http, clients, name + "-" + i));
        }
        Await.until("the wave's newcomers queued", () -> queueLength(http, router) >= WAVE - 1, () -> "queue length " + queueLength(http, router));
        faults.release();
        for (CompletableFuture<Void> s : sessions) {
            s.get(120, TimeUnit.SECONDS);
        }
    }

    private static CompletableFuture<Void> session(RouterUnderTest router, Http http, ExecutorService clients, String id) {
        AgentSession s = new AgentSession(id + "-5e55-10ff", AgentSession.Identity.CLAUDE_CODE_HEADER, "system of " + id, 400, id.hashCode());
        return CompletableFuture.runAsync(() -> {
            for (int step = 0; step < 2; step++) {
                Http.Reply r = http.post(router.url() + "/v1/messages", s.nextBody(16, false), s.headers());
                assertThat(r.status()).as("%s step %d: %s", id, step, r.body()).isEqualTo(200);
                s.append(AgentSession.replyText(r.body()), 200);
            }
        }, clients);
    }

    /** The {@code _count} of a histogram's series for one outcome, from the Prometheus text. */
    private static long count(String metrics, String histogram, String outcome) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(histogram + "_count{") && line.contains("outcome=\"" + outcome + "\"")) {
                return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no " + histogram + "_count for outcome " + outcome + " in /metrics");
    }

    private static int queueLength(Http http, RouterUnderTest router) {
        return replicas(http, router).path("queue").path("length").asInt();
    }

    private static JsonNode forecast(Http http, RouterUnderTest router) {
        return replicas(http, router).path("queue").path("forecast");
    }

    private static JsonNode replicas(Http http, RouterUnderTest router) {
        try {
            return JSON.readTree(http.get(router.url() + "/api/replicas").body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
