package io.lmwarden.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A short simulated run of a workload on LoRA adapters through the real CLI: the simulated replicas serve the adapters
 * (the sessions' adapter names are accepted, so no step fails), and the report counts the steps that waited for a slot
 * and the adapter loads, and splits the hits between adapter and base-model sessions.
 */
class AdapterWorkloadRunTest {

    @Test
    void adapterSessionsRunOnTheSimulatedPoolAndTheReportCountsSlotWaitsAndLoads(@TempDir Path out) throws Exception {
        Path file = out.resolve("lora.yaml");
        Files.writeString(file, """
                adapters: {count: 4, zipf: 1.0, share: 0.75}
                classes:
                  - name: agents
                    system: {tokens: 300}
                    firstMessage: {tokens: 500}
                    steps: 3
                    stepTokens: 60
                    maxTokens: 32
                    thinkTime: 0.1s
                """);
        // max_loras 1 (and as many in CPU memory): two adapters' requests on one engine cannot share a batch, and an
        // adapter that is not the one in CPU memory is loaded from disk.
        String progress = BenchInvocation.run(List.of("--simulate", "2", "--sessions", "6", "--policies", "least-loaded",
                "--workload", file.toString(), "--max-loras", "1", "--time-scale", "20", "--stage", "40s",
                "--stage-min-steps", "30", "--warmup", "1s", "--out", out.toString()), 0);
        assertThat(progress).contains("; adapters: ");

        JsonNode json = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(json.path("settings").path("adapters").path("count").asInt()).isEqualTo(4);
        assertThat(json.path("settings").path("adapters").path("maxLoras").asInt()).isEqualTo(1);
        JsonNode row = json.path("results").get(0);
        assertThat(row.path("errors").asInt()).as("the replicas serve every adapter name").isZero();
        int steps = row.path("steps").asInt();
        assertThat(steps).isGreaterThanOrEqualTo(30);
        JsonNode adapters = row.path("adapters");
        assertThat(adapters.path("steps").asInt()).isEqualTo(steps);
        assertThat(adapters.path("adapter_steps").asInt()).as("some sessions on adapters, some on the base model")
                .isPositive().isLessThan(steps);
        double waits = adapters.path("slot_waits").asDouble();
        assertThat(waits).as("steps that waited for the one adapter slot").isPositive();
        assertThat(adapters.path("slot_wait_pct_of_steps").asDouble()).isCloseTo(100.0 * waits / steps, within(0.01));
        assertThat(adapters.path("disk_loads").asDouble()).isPositive();
        assertThat(adapters.path("adapter_client_cached_pct").isNumber()).isTrue();
        assertThat(adapters.path("base_client_cached_pct").isNumber()).isTrue();

        String report = Files.readString(out.resolve("report.md"));
        assertThat(report).contains("LoRA on (4 adapters, max_loras 1, max_cpu_loras 1)").contains("## LoRA adapters")
                .contains("| 6 | least-loaded | " + steps + " | ");
    }
}
