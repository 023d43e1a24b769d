package io.lmwarden.bench.pool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling restart of the router Deployment with two pods (issue 33), under load: each router in turn out of the
 * bench's rotation, shut down as on SIGTERM, a new router on its port in the same cluster, and the next one only once
 * the first is back in rotation. The pins live in the cluster, so while one router is gone the other serves every step
 * and sends it where the session lives, and the new router learns the pins when it joins: no session moves (not even
 * across stages: every session's steps ran on one replica), no step fails, no connection is refused.
 */
@Tag("cluster")
class RouterRollingRestartTest {

    @Test
    void aRollingRestartOfTwoRoutersMovesNoSessionRefusesNoConnectionAndLosesNoStep(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        String progress = io.lmwarden.bench.BenchInvocation.run(List.of("--simulate", "2", "--routers", "2", "--policies", "default",
                "--sessions", "6,6", "--system-tokens", "300", "--first-tokens", "400", "--steps", "12", "--step-tokens", "40",
                "--max-tokens", "64", "--think-time", "1s", "--stage", "30s", "--time-scale", "10", "--warmup", "0",
                "--fault", "restart routers at 5s", "--out", out.toString()), 0);
        assertThat(progress).contains("fault restart routers at 5.0s: restart routers done");

        JsonNode rows = new ObjectMapper().readTree(out.resolve("results.json").toFile()).path("perRepeat");
        JsonNode restartStage = rows.get(0).path("timeline");
        assertThat(restartStage.path("faults_still_running")).as("faults the first stage ended under; progress:%n%s", progress).isEmpty();
        // In turn: router-1 goes only once router-0 is back in rotation.
        double router0Back = phaseTime(restartStage, "router-0", PoolEvents.READY);
        double router1Goes = phaseTime(restartStage, "router-1", PoolEvents.TERMINATING);
        double router1Back = phaseTime(restartStage, "router-1", PoolEvents.READY);
        assertThat(router0Back).as("router-0 back in rotation; progress:%n%s", progress).isPositive();
        assertThat(router1Goes).as("router-1 terminating after router-0 is back").isGreaterThanOrEqualTo(router0Back);
        assertThat(router1Back).as("router-1 back in rotation").isGreaterThan(router1Goes);

        for (JsonNode row : rows) {
            assertThat(row.path("errors").asInt()).as("failed steps: %s", row.path("errors_by_cause")).isZero();
            JsonNode routers = row.path("routers");
            assertThat(routers.path("refused_connections").isInt()).as("refused connections are counted: %s", routers).isTrue();
            assertThat(routers.path("refused_connections").asInt()).as("refused connections").isZero();
            assertThat(routers.path("unannounced_moves").asInt()).as("steps a router sent away from the session's home: %s", routers)
                    .isZero();
            assertThat(routers.path("sessions_on_several_replicas").asInt()).as("sessions on two replicas: %s", routers).isZero();
            assertThat(routers.path("sessions").asInt()).as("sessions with two steps or more").isPositive();
        }

        // Across the whole run, stages included: each session on one replica, and each router served steps after it was back.
        Map<String, Set<String>> replicasBySession = new HashMap<>();
        int[] afterBack = new int[2];
        List<String> lines = Files.readAllLines(out.resolve("steps-default-r1.csv"));
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertThat(f[13]).as("step %s of session %s failed", f[1], f[0]).isEmpty();
            replicasBySession.computeIfAbsent(f[0], k -> new HashSet<>()).add(f[6]);
            int router = Integer.parseInt(f[2]);
            if (Double.parseDouble(f[3]) > (router == 0 ? router0Back : router1Back)) {
                afterBack[router]++;
            }
        }
        assertThat(replicasBySession).as("sessions").hasSizeGreaterThanOrEqualTo(6);
        replicasBySession.forEach((session, replicas) -> assertThat(replicas).as("replicas of session %s", session).hasSize(1));
        assertThat(afterBack).as("steps through each restarted router after it was back").doesNotContain(0);
    }

    private static double phaseTime(JsonNode timeline, String subject, String phase) {
        for (JsonNode p : timeline.path("phases")) {
            if (p.path("subject").asText().equals(subject) && p.path("phase").asText().equals(phase)) {
                return p.path("at_s").asDouble();
            }
        }
        return -1;
    }
}
