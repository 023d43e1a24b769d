package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
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
 *
 * <p>Two stages of the same three sessions: the first holds the restart and ends only once the restart has (a new
 * router's start and cluster join cost wall time the time scale does not compress); the second is the load after it.
 */
@Tag("cluster")
class RouterRestartTest {

    @Test
    void aRestartedClusterMemberLosesNoStepAndSplitsNoSession(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        String progress = io.lmwarden.bench.BenchInvocation.run(List.of("--simulate", "2", "--routers", "3", "--policies", "default",
                "--sessions", "3,3", "--system-tokens", "300", "--first-tokens", "400", "--steps", "8", "--step-tokens", "40",
                "--max-tokens", "64", "--think-time", "1s", "--stage", "30s", "--time-scale", "10", "--warmup", "0",
                "--fault", "restart router 1 at 15s", "--out", out.toString()), 0);
        assertThat(progress).contains("fault restart router 1 at 15.0s: restart router 1 done");

        JsonNode rows = new ObjectMapper().readTree(out.resolve("results.json").toFile()).path("perRepeat");
        JsonNode restartStage = rows.get(0).path("timeline");
        assertThat(restartStage.path("overrun_s").isNumber()).as("the stage's overrun is reported: %s", restartStage).isTrue();
        assertThat(restartStage.path("faults_still_running").isArray()).as("faults the stage ended under are reported").isTrue();
        assertThat(restartStage.path("faults_still_running")).as("faults the stage ended under").isEmpty();
        JsonNode operationEnd = restartStage.path("figures").path("operation_end_s");
        assertThat(operationEnd.isNumber()).as("the operation ended within its stage; progress:%n%s", progress).isTrue();
        assertThat(operationEnd.asDouble())
                .as("the restart's end, within the stage that holds it (overrun %.1f s); progress:%n%s",
                        restartStage.path("overrun_s").asDouble(), progress)
                .isLessThanOrEqualTo(RollingUpgradeTest.stageEnd(restartStage));
        for (JsonNode row : rows) {
            assertThat(row.path("errors").asInt()).as("failed steps: %s", row.path("errors_by_cause")).isZero();
            assertThat(row.path("routers").path("unannounced_moves").asInt()).as("sessions split").isZero();
        }
        double back = -1;
        for (JsonNode p : restartStage.path("phases")) {
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
