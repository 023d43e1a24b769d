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
 * A rolling upgrade of two simulator processes under load, over loopback (issue 26): each replica is drained through
 * the router, its process stopped and a new one started on its port, undrained once it answers; no step fails, and
 * each replaced replica serves steps again after the router reports it ready, and none serves a step sent while it is
 * drained or replaced.
 *
 * <p>Two stages of the same three sessions: the first holds the upgrade, and ends only once the upgrade has (restarting a
 * JVM costs wall time the time scale does not compress, so the upgrade outlasts the first stage's nominal minute on
 * most machines); the second is the load after it, where the replaced replicas must serve.
 */
@Tag("processes")
class RollingUpgradeTest {

    @Test
    void replicasReplacedOneByOneLoseNoStepAndServeAgain(@TempDir Path dir) throws Exception {
        Path workload = dir.resolve("small.yaml");
        // Small prompts: two replicas hold every session, so the run measures the rollout, not saturation.
        Files.writeString(workload, """
                faults:
                  - upgrade replicas at 20s
                classes:
                  - name: agent
                    system: {tokens: 300}
                    firstMessage: {tokens: 400}
                    steps: 8
                    stepTokens: 40
                    maxTokens: 64
                    thinkTime: 1s
                """);
        Path out = dir.resolve("out");
        String progress = io.lmwarden.bench.BenchInvocation.run(List.of("--simulate", "2", "--sim-processes", "--workload",
                workload.toString(), "--policies", "default", "--sessions", "3,3", "--stage", "1m", "--time-scale", "10",
                "--warmup", "0", "--out", out.toString()), 0);
        assertThat(progress).contains("fault upgrade replicas at 20.0s: upgrade replicas done");

        JsonNode rows = new ObjectMapper().readTree(out.resolve("results.json").toFile()).path("perRepeat");
        JsonNode upgradeStage = rows.get(0).path("timeline");
        assertThat(upgradeStage.path("overrun_s").isNumber()).as("the stage's overrun is reported: %s", upgradeStage).isTrue();
        assertThat(upgradeStage.path("faults_still_running").isArray()).as("faults the stage ended under are reported").isTrue();
        assertThat(upgradeStage.path("faults_still_running")).as("faults the stage ended under").isEmpty();
        JsonNode operationEnd = upgradeStage.path("figures").path("operation_end_s");
        assertThat(operationEnd.isNumber()).as("the operation ended within its stage; progress:%n%s", progress).isTrue();
        assertThat(operationEnd.asDouble())
                .as("the upgrade's end, within the stage that holds it (overrun %.1f s); progress:%n%s",
                        upgradeStage.path("overrun_s").asDouble(), progress)
                .isLessThanOrEqualTo(stageEnd(upgradeStage));
        for (JsonNode row : rows) {
            assertThat(row.path("errors").asInt()).as("failed steps: %s", row.path("errors_by_cause")).isZero();
            assertThat(row.path("timeline").path("figures").path("lost_before_first_byte").asInt()).isZero();
            assertThat(row.path("timeline").path("figures").path("cut_streams").asInt()).isZero();
        }
        for (String replica : List.of("sim-0", "sim-1")) {
            double ready = phaseTime(upgradeStage, replica, PoolEvents.READY);
            assertThat(phaseTime(upgradeStage, replica, PoolEvents.STOPPED)).as("%s stopped before it was ready again", replica)
                    .isLessThan(ready);
            int servedAfter = 0;
            for (JsonNode row : rows) {
                for (JsonNode w : row.path("timeline").path("windows")) {
                    if (w.path("from_s").asDouble() >= ready) {
                        servedAfter += w.path("steps_by_replica").path(replica).asInt();
                    }
                }
            }
            assertThat(servedAfter).as("%s's steps after its new process was ready (t=%.1f s):%n%s", replica, ready,
                    rows).isPositive();
        }
        // Sessions leave a drained replica: no step sent between its drain and its new process's Ready ran there. (How
        // many moves the router announces as DRAIN depends on whether a session homed there stepped in the moment
        // between "drained" and the process's stop, which the machine's speed decides: the label is
        // ReplicaDrainTest's, with held streams, and its count RouterSpreadMeterTest's.)
        List<String> lines = Files.readAllLines(out.resolve("steps-default-r1.csv"));
        for (String replica : List.of("sim-0", "sim-1")) {
            double draining = phaseTime(upgradeStage, replica, PoolEvents.DRAINING);
            double ready = phaseTime(upgradeStage, replica, PoolEvents.READY);
            List<String> ranThere = new java.util.ArrayList<>();
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.split(",");
                double sent = Double.parseDouble(f[3]);
                double firstToken = f[4].isEmpty() ? Double.MAX_VALUE : Double.parseDouble(f[4]);
                // Sent after the drain began and answered before the new process was ready: placed there while it was
                // out. A step sent just before "ready" may be placed just after it (the router's health check and the
                // bench's record of Ready are two observers; at load 25 they were 3 s of workload time apart), so the
                // answer, not the sending, bounds it.
                if (sent > draining && firstToken < ready && f[6].equals(replica)) {
                    ranThere.add(line);
                }
            }
            assertThat(ranThere).as("steps answered by %s while it was drained or replaced (t=%.1f–%.1f s)", replica, draining,
                    ready).isEmpty();
        }
    }

    /** The stage's end, workload seconds from the variant's start: where its last window ends. */
    static double stageEnd(JsonNode timeline) {
        JsonNode windows = timeline.path("windows");
        return windows.get(windows.size() - 1).path("to_s").asDouble();
    }

    private static double phaseTime(JsonNode timeline, String subject, String phase) {
        for (JsonNode p : timeline.path("phases")) {
            if (p.path("subject").asText().equals(subject) && p.path("phase").asText().equals(phase)) {
                return p.path("at_s").asDouble();
            }
        }
        throw new AssertionError("no phase '" + phase + "' of " + subject + " in " + timeline.path("phases"));
    }
}
