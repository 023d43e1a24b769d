package io.lmwarden.bench.pool;

import io.lmwarden.router.config.PlacementSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scheduled kills that end real processes: {@code --sim-processes} SIGKILLs a simulator JVM the bench started, and
 * with {@code --target} and {@code --replica-admin} a kill reaches a simulator process through its crash fault.
 * Either way the replica's process is gone afterwards and the streams it cut are counted by cause.
 */
@Tag("processes")
class RealKillTest {
    private static final Pattern KILLED = Pattern.compile("killed sim-1 \\(pid (\\d+)\\) with SIGKILL, exit status (\\d+)");

    /**
     * Sessions spread round-robin whose replies take ~30 s of workload time (1,500 tokens at 20 ms), so at the kill
     * (20 s) the killed replica's streams are all mid-decode: a failure before the first byte the router would retry
     * elsewhere, unseen by the client.
     */
    private static Path killWorkload(Path dir) throws Exception {
        Path file = dir.resolve("kill.yaml");
        Files.writeString(file, """
                faults:
                  - kill replica 1 at 20s
                classes:
                  - name: agent
                    system: {tokens: 300}
                    firstMessage: {tokens: 500}
                    steps: 4
                    stepTokens: 60
                    maxTokens: 1500
                    thinkTime: 0s
                """);
        return file;
    }

    @Test
    void aScheduledKillOfASeparateProcessReplicaIsASigkillAndItsCutStreamsAreCounted(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        String progress = run(List.of("--simulate", "2", "--sim-processes", "--workload", killWorkload(dir).toString(),
                "--policies", "round-robin", "--sessions", "4", "--stage", "50s", "--time-scale", "10", "--warmup", "0",
                "--out", out.toString()));
        Matcher m = KILLED.matcher(progress);
        assertThat(m.find()).as("kill line in:%n%s", progress).isTrue();
        long pid = Long.parseLong(m.group(1));
        assertThat(m.group(2)).isEqualTo("137");
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid %d still alive", pid).isFalse();

        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.path("settings").path("simProcesses").asBoolean()).isTrue();
        assertThat(json.path("counterSource").asText()).contains("/metrics");
        JsonNode row = json.path("results").get(0);
        int byCause = 0;
        for (JsonNode n : (Iterable<JsonNode>) () -> row.path("errors_by_cause").elements()) {
            byCause += n.asInt();
        }
        assertThat(row.path("errors").asInt()).as("streams cut by the kill: %s", row.path("errors_by_cause")).isPositive();
        assertThat(byCause).isEqualTo(row.path("errors").asInt());
        assertThat(row.path("steps").asInt()).isGreaterThanOrEqualTo(row.path("errors").asInt());
        assertThat(row.path("prefix_hit_pct").isNumber()).as("hits from the processes' /metrics").isTrue();
        assertThat(Files.readString(out.resolve("report.md"))).contains("each in a JVM of its own");
    }

    @Test
    void withTargetAKillReachesTheListedReplicaAdminUrlAsTheCrashFault(@TempDir Path dir) throws Exception {
        SimProfile profile = SimProfile.named(SimProfile.A4000_QWEN3_4B);
        try (SimProcessPool pool = SimProcessPool.start(List.of(profile, profile), 10, 42, 1, BalancerEra.CURRENT);
             LmWardenRouter router = LmWardenRouter.start(RouterConfig.forReplicas(pool.urls()).with(PlacementSettings.POLICY, "round-robin")
                     .withTimeScale(10).withScrapeInterval(Duration.ofMillis(10)))) {
            long victim = pool.pid(1);
            String progress = run(List.of("--target", router.url(), "--replica-admin", String.join(",", pool.urls()),
                    "--workload", killWorkload(dir).toString(), "--policies", "round-robin", "--sessions", "4",
                    "--stage", "50s", "--time-scale", "10", "--out", dir.resolve("out").toString()));
            assertThat(progress).contains("fault kill replica 1 at 20.0s: crashed " + pool.urls().get(1));
            assertThat(pool.alive(1)).isFalse();
            assertThat(pool.alive(0)).isTrue();
            assertThat(ProcessHandle.of(victim).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            JsonNode row = new ObjectMapper().readTree(dir.resolve("out").resolve("results.json").toFile()).path("results").get(0);
            assertThat(row.path("errors").asInt()).as("streams cut by the crash: %s", row.path("errors_by_cause")).isPositive();
        }
    }

    private static String run(List<String> args) {
        return io.lmwarden.bench.BenchInvocation.run(args, 0);
    }
}
