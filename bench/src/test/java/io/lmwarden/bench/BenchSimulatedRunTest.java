package io.lmwarden.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.bench.report.CsvReport;
import org.junit.jupiter.api.Tag;
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
 * Short simulated runs through the real CLI: simulated replicas, the real router, real HTTP and SSE.
 * They assert structure and direction, not the published figures (that is the full sweep's job).
 */
class BenchSimulatedRunTest {

    /** Small prompts so that a stage of 40 workload seconds holds dozens of steps; 2 s wall per variant at K=20. */
    static final List<String> SMALL_WORKLOAD = List.of("--profile", "a4000-qwen3-4b", "--time-scale", "20",
            "--stage", "40s", "--system-tokens", "300", "--first-tokens", "500", "--steps", "3", "--step-tokens", "60",
            "--max-tokens", "32", "--think-time", "0.5s", "--warmup", "1s", "--seed", "7");

    @Test
    void affinityKeepsSessionsHomeAndHitsMoreThanLeastLoaded(@TempDir Path out) throws Exception {
        List<String> args = new ArrayList<>(List.of("--simulate", "2", "--sessions", "4",
                "--policies", "least-loaded,affinity", "--out", out.toString()));
        args.addAll(SMALL_WORKLOAD);
        String progress = run(args, 0);

        assertThat(progress).contains("[least-loaded, repeat 1] 4 sessions:").contains("[affinity, repeat 1] 4 sessions:");
        for (String file : List.of("report.md", "results.csv", "results.json", "ttfb.png", "prefix_hits.png", "output_tokens.png")) {
            assertThat(out.resolve(file)).isNotEmptyFile();
        }
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv.get(0)).isEqualTo(CsvReport.HEADER);
        assertThat(csv).hasSize(3);
        Map<String, Map<String, String>> rows = new HashMap<>();
        for (String line : csv.subList(1, csv.size())) {
            String[] cells = line.split(",", -1);
            Map<String, String> row = new HashMap<>();
            String[] header = csv.get(0).split(",");
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.put(cells[0], row);
        }
        Map<String, String> leastLoaded = rows.get("least-loaded");
        Map<String, String> affinity = rows.get("affinity");
        assertThat(leastLoaded.get("errors")).isEqualTo("0");
        assertThat(affinity.get("errors")).isEqualTo("0");
        assertThat(Double.parseDouble(affinity.get("prefix_hit_pct")))
                .as("affinity's prefix hits above least-loaded's")
                .isGreaterThan(Double.parseDouble(leastLoaded.get("prefix_hit_pct")));
        assertThat(Double.parseDouble(affinity.get("stayed_pct"))).isEqualTo(100.0);
        assertThat(Double.parseDouble(affinity.get("oracle_hit_pct"))).isBetween(50.0, 100.0);
        assertThat(Double.parseDouble(affinity.get("output_tokens_per_min"))).isPositive();
        assertThat(Double.parseDouble(affinity.get("ttfb_p95_s")))
                .isGreaterThanOrEqualTo(Double.parseDouble(affinity.get("ttfb_p50_s")));

        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.path("results")).hasSize(2);
        assertThat(json.path("perRepeat")).hasSize(2);
        assertThat(json.path("settings").path("timeScale").asDouble()).isEqualTo(20.0);
        assertThat(json.path("perRepeat").get(0).path("steps").asInt()).isGreaterThan(10);

        String report = Files.readString(out.resolve("report.md"));
        assertThat(report).contains("least-loaded → affinity").contains("| 4 |").contains("--simulate 2");
        // No adapters in the workload: LoRA stays off and the report has no adapter figures.
        assertThat(json.path("results").get(0).has("adapters")).isFalse();
        assertThat(json.path("settings").has("adapters")).isFalse();
        assertThat(report).doesNotContain("LoRA");
    }

    @Test
    void dataParallelServerOwnBalancerAgainstAffinityOverItsRanks(@TempDir Path out) throws Exception {
        List<String> args = new ArrayList<>(List.of("--simulate", "1", "--engines", "4", "--sessions", "8",
                "--policies", "passthrough@blind,affinity", "--out", out.toString()));
        // A slower clock than the other runs (8 s of wall time per stage): four engines need more steps to compare.
        List<String> workload = new ArrayList<>(SMALL_WORKLOAD);
        workload.set(workload.indexOf("--time-scale") + 1, "5");
        args.addAll(workload);
        String progress = run(args, 0);

        assertThat(progress).contains("[passthrough@blind, repeat 1] 8 sessions:").contains("[affinity, repeat 1] 8 sessions:");
        Map<String, Map<String, String>> rows = new HashMap<>();
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        String[] header = csv.get(0).split(",");
        for (String line : csv.subList(1, csv.size())) {
            String[] cells = line.split(",", -1);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.put(cells[0], row);
        }
        assertThat(rows.get("passthrough@blind").get("errors")).isEqualTo("0");
        assertThat(rows.get("affinity").get("errors")).isEqualTo("0");
        assertThat(Double.parseDouble(rows.get("affinity").get("prefix_hit_pct")))
                .as("pinning sessions to engine ranks beats the server's round-robin")
                .isGreaterThan(Double.parseDouble(rows.get("passthrough@blind").get("prefix_hit_pct")));
        assertThat(Double.parseDouble(rows.get("affinity").get("stayed_pct"))).isEqualTo(100.0);
        assertThat(rows.get("passthrough@blind").get("stayed_pct")).as("the server picked the engine: unknown").isEmpty();
        assertThat(Double.parseDouble(rows.get("affinity").get("replicas_busy"))).as("engines, not servers, are counted")
                .isGreaterThan(1.0);
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.path("settings").path("engines").asInt()).isEqualTo(4);
    }

    @Test
    void openAiFlavourRunsWithoutErrorsAndLogsEveryStep(@TempDir Path out) throws Exception {
        List<String> args = new ArrayList<>(List.of("--simulate", "1", "--sessions", "2", "--policies", "affinity",
                "--api", "openai", "--step-log", "--out", out.toString()));
        args.addAll(SMALL_WORKLOAD);
        run(args, 0);
        JsonNode row = new ObjectMapper().readTree(out.resolve("results.json").toFile()).path("results").get(0);
        assertThat(row.path("errors").asInt()).isZero();
        assertThat(row.path("steps").asInt()).isGreaterThan(5);
        assertThat(row.path("prefix_hit_pct").asDouble()).isGreaterThan(30.0);
        assertThat(row.path("client_cached_pct").asDouble()).isGreaterThan(30.0);
        // --step-log: every step, measured or not, with the replica that served it and the router's decision.
        List<String> lines = java.nio.file.Files.readAllLines(out.resolve("steps-affinity-r1.csv"));
        assertThat(lines.get(0)).startsWith("session,step,router,");
        assertThat(lines.size() - 1).isGreaterThanOrEqualTo(row.path("steps").asInt());
        assertThat(lines.subList(1, lines.size())).allSatisfy(l -> assertThat(l).contains(",sim-0,"));
    }

    @Test
    void workloadFileRunsItsClassesOnAHeterogeneousPoolAndCountsAScheduledKill(@TempDir Path out) throws Exception {
        Path file = out.resolve("w.yaml");
        Files.writeString(file, """
                pool:
                  replicas:
                    2: prefillMsPerToken=0.9,stepBaseMs=40
                faults:
                  - kill replica 1 at 25s
                  - 503 x 3 replica 0 at 10s
                classes:
                  - name: short
                    system: {tokens: 300}
                    firstMessage: {tokens: 400, shared: true}
                    steps: 1
                    stepTokens: 60
                    maxTokens: 32
                    thinkTime: 0.2s
                    key: none
                  - name: long
                    system: {tokens: 300}
                    firstMessage: {tokens: 500}
                    steps: {min: 4, max: 6}
                    stepTokens: 60
                    maxTokens: 32
                    thinkTime: 0.2s
                    api: responses
                """);
        String progress = run(List.of("--simulate", "3", "--sessions", "6", "--policies", "affinity", "--workload", file.toString(),
                "--time-scale", "10", "--stage", "60s", "--warmup", "1s", "--out", out.toString()), 0);
        assertThat(progress).contains("router at http://127.0.0.1:")
                .contains("fault kill replica 1 at 25.0s: killed sim-1")
                .contains("fault 503 x 3 replica 0 at 10.0s: armed on sim-0");
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        JsonNode row = json.path("results").get(0);
        assertThat(row.path("steps").asInt()).isGreaterThan(8);
        // The router retries a 503 or a refused connection on another replica, so few failures reach the client;
        // those that do (a stream cut by the kill, a retry that failed too) are all counted under a cause.
        int byCause = 0;
        for (JsonNode n : (Iterable<JsonNode>) () -> row.path("errors_by_cause").elements()) {
            byCause += n.asInt();
        }
        assertThat(byCause).isEqualTo(row.path("errors").asInt());
        assertThat(json.path("settings").path("sessionClasses")).hasSize(2);
        // Two classes: each gets its own figures, and together they are the stage's steps.
        JsonNode classes = row.path("classes");
        assertThat(classes).hasSize(2);
        assertThat(classes.get(0).path("class").asText()).isIn("short", "long");
        assertThat(classes.get(0).path("steps").asInt() + classes.get(1).path("steps").asInt()).isEqualTo(row.path("steps").asInt());
        for (JsonNode c : classes) {
            assertThat(c.path("ttfb_p50_s").isNumber()).isTrue();
        }
        JsonNode replicas = json.path("perRepeat").get(0).path("replicas");
        assertThat(replicas).hasSize(3);
        int served = 0;
        for (JsonNode r : replicas) {
            assertThat(r.path("id").asText()).startsWith("sim-");
            assertThat(r.has("ttfb_p50_s") && r.has("prefix_hit_pct") && r.has("busy_pct")).isTrue();
            served += r.path("requests").asInt();
        }
        assertThat(served).isPositive().isLessThanOrEqualTo(row.path("steps").asInt());
        String report = Files.readString(out.resolve("report.md"));
        assertThat(report).contains("Workload file:").contains("short (share 1.0)").contains("key none")
                .contains("api responses").contains("replica 2: prefillMsPerToken=0.9").contains("kill replica 1 at 25.0s")
                .contains("## Per session class").contains("| affinity | short |").contains("| affinity | long |");
    }

    @Test
    void badArgumentsGetAClearMessageAndExitCode2() {
        assertThat(run(List.of("--simulate", "2", "--target", "http://127.0.0.1:1"), 2)).contains("choose exactly one target");
        assertThat(run(List.of("--simulate", "2", "--profile", "h100"), 2)).contains("known profiles");
        assertThat(run(List.of("--simulate", "2", "--api", "grpc"), 2)).contains("--api must be");
        assertThat(run(List.of("--simulate", "2", "--stage", "soon"), 2)).contains("not a duration");
    }

    @Test
    @Tag("cluster")
    void stepsThroughThreeClusteredRoutersReachEveryRouterAndSessionsKeepTheirReplica(@TempDir Path out) throws Exception {
        List<String> args = new ArrayList<>(List.of("--simulate", "2", "--sessions", "4",
                "--policies", "affinity,affinity*3", "--out", out.toString()));
        args.addAll(SMALL_WORKLOAD);
        String progress = run(args, 0);

        assertThat(progress).contains("3 clustered routers at http://");
        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        JsonNode one = null;
        JsonNode three = null;
        for (JsonNode row : json.path("perRepeat")) {
            if (row.path("policy").asText().equals("affinity")) {
                one = row;
            } else if (row.path("policy").asText().equals("affinity*3")) {
                three = row;
            }
        }
        assertThat(one.path("routers").path("steps_per_router")).hasSize(1);
        JsonNode steps = three.path("routers").path("steps_per_router");
        assertThat(steps).hasSize(3);
        // Consecutive steps of a session go to different routers, so every router serves some.
        steps.forEach(n -> assertThat(n.asInt()).isPositive());
        assertThat(three.path("errors").asInt()).isZero();
        // The routers agree on every session's home: affinity without admission never moves a session here.
        assertThat(three.path("routers").path("sessions").asInt()).isPositive();
        assertThat(three.path("routers").path("sessions_on_several_replicas").asInt()).isZero();
        assertThat(three.path("routers").path("unannounced_moves").asInt()).isZero();
        assertThat(three.path("stayed_pct").asDouble()).isEqualTo(100.0);
        assertThat(Files.readString(out.resolve("report.md"))).contains("## Routers and splits").contains("| affinity*3 | 4 | 3 |");
    }

    private static String run(List<String> args, int expectedExit) {
        return BenchInvocation.run(args, expectedExit);
    }
}
