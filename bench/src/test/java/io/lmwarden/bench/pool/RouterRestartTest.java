package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A router of a 3-router loopback cluster restarted under load (issue 26): out of the bench's rotation, shut down as on
 * SIGTERM, a new router on its port in the same cluster, back once its /readyz answers. No step fails, no session is
 * split, and steps reach the new router.
 */
class RouterRestartTest {

    @Test
    void aRestartedClusterMemberLosesNoStepAndSplitsNoSession(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        String progress = io.lmwarden.bench.BenchInvocation.run(List.of("--simulate", "2", "--routers", "3", "--policies", "default",
                "--sessions", "3", "--system-tokens", "300", "--first-tokens", "400", "--steps", "8", "--step-tokens", "40",
                "--max-tokens", "64", "--think-time", "1s", "--stage", "90s", "--time-scale", "10", "--warmup", "0",
                "--fault", "restart router 1 at 15s", "--out", out.toString()), 0);
        assertThat(progress).contains("fault restart router 1 at 15.0s: restart router 1 done");

        JsonNode row = new ObjectMapper().readTree(out.resolve("results.json").toFile()).path("perRepeat").get(0);
        assertThat(row.path("errors").asInt()).as("failed steps: %s", row.path("errors_by_cause")).isZero();
        assertThat(row.path("routers").path("unannounced_moves").asInt()).as("sessions split").isZero();
        double back = -1;
        for (JsonNode p : row.path("timeline").path("phases")) {
            if (p.path("subject").asText().equals("router-1") && p.path("phase").asText().equals(PoolEvents.READY)) {
                back = p.path("at_s").asDouble();
            }
        }
        assertThat(back).as("router-1 back in rotation").isPositive();
        // Steps sent to router 1 after it was back (the step log's sent_s is workload time from the variant's start).
        long afterBack = 0;
        List<String> lines = Files.readAllLines(out.resolve("steps-default-r1.csv"));
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            if (f[2].equals("1") && Double.parseDouble(f[3]) > back) {
                afterBack++;
            }
        }
        assertThat(afterBack).as("steps through the restarted router").isPositive();
    }
}
