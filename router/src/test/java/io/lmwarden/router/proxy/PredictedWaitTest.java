package io.lmwarden.router.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.config.AdmissionSettings;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fail-fast admission over real HTTP: one simulated replica (real time) whose KV budget holds one session, so sessions
 * are admitted from the queue one at a time, each after the previous one's step ends. Once the router has seen how
 * fast the queue moves and how far its forecast was off for a wave of newcomers, a newcomer whose corrected forecast
 * wait is longer than the queue timeout is told at once (429, or 529 on the Anthropic API) with Retry-After from that
 * forecast, instead of after waiting the whole timeout; a step of a session already in progress is never turned away
 * however long the queue.
 */
class PredictedWaitTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration QUEUE_TIMEOUT = Duration.ofSeconds(3);
    private static final int FIRST_WAVE = 5;
    private static final int NEWCOMERS = 10;
    /** Newcomers whose forecasts are settled before the late ones come: enough to measure the forecast's error. */
    private static final int MEASURED = 10;

    @Test
    void aNewcomerThatWouldOutwaitTheQueueTimeoutIsToldAtOnceWithRetryAfterAndSessionsInProgressStillGetThrough() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(FIRST_WAVE + MEASURED + NEWCOMERS + 1);
        try (RouterUnderTest router = RouterUnderTest.start(SimPool.start(1, SimProfile.defaultProfile(), 1),
                c -> c.with(AdmissionSettings.ADMISSION, true).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS)
                        .with(AdmissionSettings.KV_BUDGET, 0.0001).with(AdmissionSettings.QUEUE_TIMEOUT, QUEUE_TIMEOUT)
                        .with(AdmissionSettings.QUEUE_KEEP_ALIVE, Duration.ofMillis(200)))) {
            Http http = new Http();
            // The first wave queues behind its first session: nothing is known of the queue's pace yet, so none is refused.
            List<AgentSession> wave = new ArrayList<>();
            List<CompletableFuture<Http.Reply>> firstSteps = new ArrayList<>();
            for (int i = 0; i < FIRST_WAVE; i++) {
                AgentSession s = new AgentSession("wave-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, "system " + i, 200, 100 + i);
                wave.add(s);
                String body = s.nextBody(25, false);
                firstSteps.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, s.headers()), clients));
                RouterUnderTest.sleep(20);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (queueAdmissions(http, router) < 3 && System.nanoTime() < deadline) {
                RouterUnderTest.sleep(20);
            }
            assertThat(queueAdmissions(http, router)).as("admissions from the queue before the newcomers come").isGreaterThanOrEqualTo(3);
            assertThat(firstSteps.get(0).get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
            AgentSession first = wave.get(0);
            first.append(AgentSession.replyText(firstSteps.get(0).get().body()), 25);
            for (CompletableFuture<Http.Reply> f : firstSteps) {
                f.get(60, TimeUnit.SECONDS);
            }

            // A wave whose forecasts are settled (admitted, or timed out): no one is refused before the error is measured.
            List<CompletableFuture<Http.Reply>> measuring = new ArrayList<>();
            for (int i = 0; i < MEASURED; i++) {
                AgentSession s = new AgentSession("measured-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, "measured system " + i, 200, 300 + i);
                String body = s.nextBody(25, false);
                measuring.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, s.headers()), clients));
                RouterUnderTest.sleep(30);
            }
            for (CompletableFuture<Http.Reply> f : measuring) {
                Http.Reply r = f.get(60, TimeUnit.SECONDS);
                assertThat(r.body()).as("not refused on an unmeasured forecast").doesNotContain("predicted");
            }
            assertThat(JSON.readTree(http.get(router.url() + "/api/replicas").body()).path("queue").path("forecast").path("measured").asBoolean())
                    .as("the forecast's error is measured").isTrue();

            // Newcomers, one after another: each has more of them ahead, until the predicted wait passes the timeout.
            List<CompletableFuture<Timed>> newcomers = new ArrayList<>();
            for (int i = 0; i < NEWCOMERS; i++) {
                AgentSession s = new AgentSession("late-" + i, AgentSession.Identity.CLAUDE_CODE_HEADER, "late system " + i, 200, 500 + i);
                String body = s.nextBody(25, false);
                newcomers.add(CompletableFuture.supplyAsync(() -> {
                    long sent = System.nanoTime();
                    Http.Reply r = http.post(router.url() + "/v1/messages", body, s.headers());
                    return new Timed(r, Duration.ofNanos(System.nanoTime() - sent));
                }, clients));
                RouterUnderTest.sleep(30);
            }
            // While they wait, the first session takes its next step: in progress, it is never refused.
            Http.Reply secondStep = http.post(router.url() + "/v1/messages", first.nextBody(25, false), first.headers());
            assertThat(secondStep.status()).as("a step of a session in progress; body %s", secondStep.body()).isEqualTo(200);

            List<Timed> refusedAtOnce = new ArrayList<>();
            for (CompletableFuture<Timed> f : newcomers) {
                Timed t = f.get(60, TimeUnit.SECONDS);
                if (t.reply().status() == 529 && JSON.readTree(t.reply().body()).path("error").path("message").asText().contains("predicted")) {
                    refusedAtOnce.add(t);
                }
            }
            assertThat(refusedAtOnce).as("newcomers refused on the predicted wait").isNotEmpty();
            for (Timed t : refusedAtOnce) {
                assertThat(t.took()).as("refused at once, not after the %s timeout", QUEUE_TIMEOUT).isLessThan(QUEUE_TIMEOUT.dividedBy(2));
                int retryAfter = Integer.parseInt(t.reply().header("retry-after"));
                assertThat(retryAfter).as("Retry-After is the predicted wait, past the timeout").isGreaterThan((int) QUEUE_TIMEOUT.toSeconds());
                JsonNode error = JSON.readTree(t.reply().body());
                assertThat(error.path("type").asText()).isEqualTo("error");
                assertThat(error.path("error").path("type").asText()).isEqualTo("overloaded_error");
                assertThat(error.path("error").path("message").asText()).contains("queueTimeout", retryAfter + " s");
            }
            for (CompletableFuture<Http.Reply> f : firstSteps) {
                assertThat(f.get().status()).as("first wave: queued before the pace was known").isIn(200, 529);
            }
            String metrics = http.get(router.url() + "/metrics").body();
            assertThat(metrics).contains("lmw_admission_rejected_total{reason=\"predicted_wait\"} " + refusedAtOnce.size() + ".0");
            // The router keeps serving.
            assertThat(http.get(router.url() + "/api/replicas").status()).isEqualTo(200);
        } finally {
            clients.shutdownNow();
        }
    }

    private record Timed(Http.Reply reply, Duration took) {
    }

    private static double queueAdmissions(Http http, RouterUnderTest router) {
        for (String line : http.get(router.url() + "/metrics").body().split("\n")) {
            if (line.startsWith("lmw_queue_wait_seconds_count")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }
}
