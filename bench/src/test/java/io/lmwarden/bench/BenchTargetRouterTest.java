package io.lmwarden.bench;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.config.PlacementSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.bench.pool.LoopbackRouters;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --target}: a router already running (here in-process, over real HTTP), policies switched through its admin API. */
class BenchTargetRouterTest {

    private static final double K = 20;

    @Test
    void switchesPoliciesThroughTheAdminApiAndReadsCountersFromApiReplicas(@TempDir Path out) throws Exception {
        try (SimCluster cluster = SimCluster.start(SimOptions.defaults().withReplicas(2)
                .withProfile(SimProfile.named(SimProfile.A4000_QWEN3_4B)).withTimeScale(K));
             LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(cluster.urls()).with(PlacementSettings.POLICY, "round-robin")
                     .withTimeScale(K).withScrapeInterval(Duration.ofMillis(20)).with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("s3cret")))) {
            String progress = run(List.of("--target", router.url(), "--admin-token", "s3cret", "--time-scale", "20",
                    "--policies", "least-loaded,affinity", "--sessions", "2", "--stage", "30s", "--stage-min-steps", "5", "--system-tokens", "300",
                    "--first-tokens", "500", "--steps", "3", "--step-tokens", "60", "--max-tokens", "32",
                    "--think-time", "0.5s", "--out", out.toString()), 0);
            assertThat(progress).contains("[least-loaded, repeat 1] 2 sessions:").contains("[affinity, repeat 1] 2 sessions:");

            JsonNode results = new ObjectMapper().readTree(out.resolve("results.json").toFile());
            assertThat(results.path("counterSource").asText()).contains("/api/replicas");
            for (JsonNode row : results.path("results")) {
                assertThat(row.path("errors").asInt()).isZero();
                assertThat(row.path("steps").asInt()).isGreaterThan(4);
                assertThat(row.path("prefix_hit_pct").isNumber()).as("hits from the router's engine counters").isTrue();
            }
            String policy = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(router.url() + "/api/policy")).header("Authorization", "Bearer s3cret").build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(new ObjectMapper().readTree(policy).path("policy").asText()).isEqualTo("affinity");

            String refused = run(List.of("--target", router.url(), "--admin-token", "wrong", "--sessions", "1",
                    "--stage", "1s"), 1);
            assertThat(refused).contains("401").contains("--admin-token");
        }
    }

    @Test
    @Tag("cluster")
    void aCommaSeparatedTargetSendsStepsToEveryRouterOfTheClusterInTurn(@TempDir Path out) throws Exception {
        try (SimCluster cluster = SimCluster.start(SimOptions.defaults().withReplicas(2)
                .withProfile(SimProfile.named(SimProfile.A4000_QWEN3_4B)).withTimeScale(K));
             LoopbackRouters routers = LoopbackRouters.start(RouterConfig.forReplicas(cluster.urls()).with(ServerSettings.HOST, "127.0.0.1")
                     .withTimeScale(K).withScrapeInterval(Duration.ofMillis(20)).with(ServerSettings.ADMIN_TOKEN, java.util.Optional.of("s3cret")), 2,
                     "lmw-bench-target-test-" + ProcessHandle.current().pid())) {
            String targets = String.join(",", routers.urls());
            // Sessions start on routers 0, 1, 0 and alternate: of any 6 steps that ended, some went to each router.
            run(List.of("--target", targets, "--admin-token", "s3cret", "--time-scale", "20",
                    "--policies", "affinity", "--sessions", "3", "--stage", "30s", "--stage-min-steps", "6", "--system-tokens", "300",
                    "--first-tokens", "500", "--steps", "3", "--step-tokens", "60", "--max-tokens", "32",
                    "--think-time", "0.5s", "--out", out.toString()), 0);
            JsonNode row = new ObjectMapper().readTree(out.resolve("results.json").toFile()).path("results").get(0);
            assertThat(row.path("errors").asInt()).isZero();
            JsonNode spread = row.path("routers");
            assertThat(spread.path("steps_per_router")).hasSize(2);
            spread.path("steps_per_router").forEach(n -> assertThat(n.asInt()).isPositive());
            assertThat(spread.path("unannounced_moves").asInt()).isZero();
            assertThat(spread.path("sessions_on_several_replicas").asInt()).isZero();
            // The policy is each router's own: both were switched.
            for (String url : routers.urls()) {
                String policy = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/api/policy"))
                        .header("Authorization", "Bearer s3cret").build(), HttpResponse.BodyHandlers.ofString()).body();
                assertThat(new ObjectMapper().readTree(policy).path("admission").asBoolean()).as("admission on " + url).isFalse();
            }
            String bad = run(List.of("--target", routers.urls().get(0) + ",router-2:8080", "--sessions", "1", "--stage", "1s"), 2);
            assertThat(bad).contains("router URLs separated by commas");
        }
    }

    private static String run(List<String> args, int expectedExit) {
        return BenchInvocation.run(args, expectedExit);
    }
}
