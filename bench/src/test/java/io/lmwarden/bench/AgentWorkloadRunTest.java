package io.lmwarden.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23's instruments through the real CLI on simulated replicas behind the real router: the ceiling and the goal
 * verdict, the claude-code-tools class on a 32k window, and a trace replay. Structure and direction, not figures.
 */
class AgentWorkloadRunTest {

    @Test
    void theCeilingRunsBesideThePoliciesAndTheGoalIsJudgedPerStage(@TempDir Path out) throws Exception {
        List<String> args = new ArrayList<>(List.of("--simulate", "2", "--sessions", "4", "--policies", "affinity,default",
                "--ceiling", "--out", out.toString()));
        args.addAll(BenchSimulatedRunTest.SMALL_WORKLOAD);
        String progress = BenchInvocation.run(args, 0);
        assertThat(progress).contains("[ceiling, repeat 1] 4 sessions:");
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        Map<String, JsonNode> rows = new HashMap<>();
        json.path("results").forEach(r -> rows.put(r.path("policy").asText(), r));
        assertThat(rows).containsOnlyKeys("affinity", "default", "ceiling");
        assertThat(rows.get("ceiling").path("ceiling_ratio_output_tokens").asDouble()).isEqualTo(1.0);
        assertThat(rows.get("affinity").path("ceiling_ratio_output_tokens").asDouble()).isPositive();
        assertThat(rows.get("ceiling").path("errors").asInt()).isZero();
        // every session of the largest stage at its largest context (300 + 500 + 3 × (60 + 32) + 32, template included) fits
        String target = json.path("target").asText();
        long ceilingTokens = Long.parseLong(target.replaceAll(".*the ceiling variant's replicas hold ([0-9,]+) KV tokens.*", "$1")
                .replace(",", ""));
        assertThat(ceilingTokens).isGreaterThanOrEqualTo(4L * (300 + 500 + 3 * (60 + 32) + 32));
        JsonNode cell = json.path("goal").path("cells").get(0);
        assertThat(cell.path("sessions").asInt()).isEqualTo(4);
        assertThat(cell.path("criteria")).hasSize(4);
        assertThat(cell.path("criteria").get(0).path("best_other").asText()).isEqualTo("affinity");
        assertThat(cell.path("rejected_in_progress").asInt()).isZero();
        assertThat(cell.has("met")).isTrue();
        assertThat(rows.get("default").path("session_time_littles_law_s").asDouble()).isPositive();
        assertThat(Files.readString(out.resolve("report.md"))).contains("Tok/min ÷ ceiling")
                .contains("## Goal: default against the best other policy").contains("Session time, Little's law");
    }

    @Test
    void claudeCodeToolsJoinsMidLifeAndStaysInsideA32kWindow(@TempDir Path out) throws Exception {
        // The built-in class with short pauses, so that a one-minute stage sees calls: its real pauses (a 92 s mean and a
        // heavy tail) leave joined sessions waiting minutes before their first call.
        Path file = out.resolve("agents.yaml");
        Files.writeString(file, """
                start: steady
                classes:
                  - name: agents
                    base: claude-code-tools
                    thinkTime: {p50: 1s, p90: 4s, max: 10s}
                """);
        BenchInvocation.run(List.of("--simulate", "2", "--sessions", "3", "--policies", "affinity", "--workload", file.toString(),
                "--time-scale", "20", "--stage", "60s", "--warmup", "1s", "--out", out.toString()), 0);
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.path("settings").path("sessionStart").asText()).isEqualTo("steady");
        JsonNode row = json.path("results").get(0);
        // Joined sessions carry histories of up to a window's worth: none may pass the 32k window (the engine's 400)
        assertThat(row.path("errors").asInt()).as("errors: %s", row.path("errors_by_cause")).isZero();
        assertThat(row.path("steps").asInt()).isGreaterThanOrEqualTo(3);
        // sessions of ~70 calls outlast a one-minute stage
        assertThat(row.path("sessions_unfinished").asInt()).isPositive();
        assertThat(row.path("sessions_per_hour_from_calls").asDouble()).isPositive();
        assertThat(json.path("settings").path("sessionClasses").get(0).asText()).contains("agents")
                .contains("system 15000 tokens").contains("compaction at 95% of the window");
    }

    @Test
    void aTraceReplaysInWindowsPerPolicy(@TempDir Path out) throws Exception {
        String progress = BenchInvocation.run(List.of("replay", "--trace", "traces/mooncake-conversation-head.jsonl", "--simulate", "2",
                "--policies", "least-loaded,affinity", "--duration", "2s", "--stage", "30s", "--time-scale", "10", "--warmup", "1s",
                "--out", out.toString()), 0);
        assertThat(progress).contains("replaying traces/mooncake-conversation-head.jsonl: 10 sessions, 10 requests (140 sessions begin"
                + " after --duration), 1 windows of 30 s").contains("window 1 (");
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.path("settings").path("trace").path("blockSize").asInt()).isEqualTo(512);
        for (JsonNode row : json.path("results")) {
            assertThat(row.path("sessions").asInt()).isEqualTo(1);
            assertThat(row.path("errors").asInt()).isZero();
            assertThat(row.path("steps").asInt()).isBetween(1, 10);
            // hash id 0 opens every request: the oracle can serve it after the first
            assertThat(row.path("oracle_hit_pct").asDouble()).isPositive();
        }
        assertThat(Files.readString(out.resolve("report.md"))).contains("| Window |").contains("Trace replay:");
    }

    @Test
    void workloadStatsPrintsTheCalibrationTable() {
        String text = BenchInvocation.run(List.of("workload-stats", "--workload", "claude-code-tools", "--context-window", "32768",
                "--samples", "50"), 0);
        assertThat(text).contains("## claude-code-tools, window 32768 tokens, 50 sessions").contains("| prompt tokens per call |")
                .contains("| compactions per session |");
    }
}
