package io.lmwarden.bench.probe;

import io.lmwarden.router.config.ServerSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.bench.BenchInvocation;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code lmw-bench probe} against a live router (in-process, real HTTP) in front of two simulated replicas. */
class ProbeTest {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @Test
    void findsTheHitAndTheMissThenRunsEveryPolicyColdAndWarm(@TempDir Path out) throws Exception {
        try (SimCluster cluster = SimCluster.start(SimOptions.defaults().withReplicas(2)
                .withProfile(SimProfile.named(SimProfile.A4000_QWEN3_4B)).withTimeScale(20));
             LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(cluster.urls()).withTimeScale(20)
                     .withScrapeInterval(Duration.ofMillis(20)).with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("s3cret")))) {
            awaitScrapedAndReady(router.url(), "s3cret", 2);
            String text = BenchInvocation.run(List.of("probe", "--target", router.url(), "--admin-token", "s3cret", "--repeat", "1",
                    "--sessions", "2", "--stage", "20s", "--stage-min-steps", "2", "--out", out.toString(),
                    "--time-scale", "20", "--system-tokens", "300", "--first-tokens", "500", "--steps", "2",
                    "--step-tokens", "60", "--max-tokens", "32", "--think-time", "0.5s"), 0);
            assertThat(text).contains("a hit, as expected").contains("a miss, as expected");

            JsonNode report = new ObjectMapper().readTree(out.resolve("probe.json").toFile());
            JsonNode check = report.path("cacheCheck");
            assertThat(check.path("same").path("replica").asText()).isEqualTo(check.path("cold").path("replica").asText());
            assertThat(check.path("other").path("replica").asText()).isNotEqualTo(check.path("cold").path("replica").asText());
            assertThat(check.path("same").path("cachedTokens").asInt()).isGreaterThan(1500);
            assertThat(check.path("other").path("cachedTokens").asInt()).isLessThan(200);
            List<String> runs = new ArrayList<>();
            Set<Long> seeds = new HashSet<>();
            for (JsonNode run : report.path("runs")) {
                assertThat(run.path("exit").asInt()).isZero();
                assertThat(run.path("results").path(0).path("steps").asInt()).isPositive();
                runs.add(run.path("policy").asText() + "/" + run.path("phase").asText());
                seeds.add(run.path("seed").asLong());
            }
            assertThat(runs).containsExactly("least-loaded/cold", "least-loaded/warm", "affinity/cold", "affinity/warm");
            assertThat(seeds).hasSize(2);
            assertThat(out.resolve("r1-affinity-warm").resolve("results.json")).isNotEmptyFile();
        }
    }

    /**
     * Until the router has scraped {@code replicas} replicas and reports them ready: the probe's cache check needs two
     * ready replicas (a hit on one, a miss on the other), and on a loaded machine the first scrape can take seconds.
     */
    private static void awaitScrapedAndReady(String router, String adminToken, int replicas) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create(router + "/api/replicas")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + adminToken).GET().build();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            last = r.body();
            int ready = 0;
            if (r.statusCode() == 200) {
                for (JsonNode row : new ObjectMapper().readTree(last).path("replicas")) {
                    ready += row.path("ready").asBoolean(false) && row.path("metricsFresh").asBoolean(false) ? 1 : 0;
                }
            }
            if (ready >= replicas) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the router did not report " + replicas + " scraped, ready replicas within " + DEADLINE.toSeconds()
                + " s: " + last);
    }
}
