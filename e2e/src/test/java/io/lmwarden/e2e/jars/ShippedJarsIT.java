package io.lmwarden.e2e.jars;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.e2e.support.JarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/** What an operator sees of the four shipped jars: their version, and log lines a collector can parse. */
class ShippedJarsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VERSION = System.getProperty("lmw.version");

    @ParameterizedTest
    @CsvSource({"lmw.router.jar, lmw-router", "lmw.sim.jar, lmw-sim", "lmw.operator.jar, lmw-operator", "lmw.bench.jar, lmw-bench"})
    void versionOptionPrintsTheBuildsVersion(String jarProperty, String name) throws Exception {
        assertThat(VERSION).isNotBlank();
        Path jar = Path.of(System.getProperty(jarProperty));
        try (JarFile f = new JarFile(jar.toFile())) {
            assertThat(f.getManifest().getMainAttributes().getValue("Implementation-Version")).isEqualTo(VERSION);
        }
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString(), "--version")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out).isEqualTo(name + " " + VERSION);
    }

    @Test
    void routerWithJsonLogsWritesOnlyJsonLinesWithFieldsAndSaysWhenItStops() throws Exception {
        int port = JarProcess.freePort();
        List<JsonNode> lines;
        JarProcess router = JarProcess.start("lmw.router.jar", List.of("--simulate", "2", "--port", Integer.toString(port),
                "--host", "127.0.0.1", "--log-format", "json", "--shutdown-grace", "2s"), Map.of());
        try {
            router.awaitHttp200("http://127.0.0.1:" + port + "/readyz", Duration.ofSeconds(60));
        } finally {
            router.close(); // SIGTERM, then waits for the process to end
        }
        lines = jsonLines(router.output());
        JsonNode listening = find(lines, "router listening");
        assertThat(listening.path("port").asInt()).isEqualTo(port);
        assertThat(listening.path("version").asText()).isEqualTo(VERSION);
        // An endpoint of its own (one engine): the pool logs the endpoint it discovered.
        JsonNode added = find(lines, "endpoint added");
        assertThat(added.path("endpoint").asText()).startsWith("sim-");
        assertThat(added.path("ready").isBoolean()).isTrue();
        find(lines, "simulated replica listening");
        find(lines, "shutdown requested (SIGTERM or SIGINT)");
        assertThat(find(lines, "shutdown complete").path("tookMs").isNumber()).isTrue();
        for (JsonNode l : lines) {
            assertThat(l.path("message").asText()).as("fields are JSON fields, not key=value text: %s", l).doesNotContain("=");
        }
    }

    @Test
    void simulatorWithJsonLogsWritesOnlyJsonLinesAndSaysWhenItStops() throws Exception {
        int port = JarProcess.freePort();
        JarProcess sim = JarProcess.start("lmw.sim.jar", List.of("--replicas", "1", "--port", Integer.toString(port),
                "--log-format", "json"), Map.of());
        try {
            sim.awaitHttp200("http://127.0.0.1:" + port + "/health", Duration.ofSeconds(30));
        } finally {
            sim.close();
        }
        List<JsonNode> lines = jsonLines(sim.output());
        assertThat(find(lines, "simulated replica listening").path("port").asInt()).isEqualTo(port);
        find(lines, "shutdown requested (SIGTERM or SIGINT)");
        find(lines, "shutdown complete");
    }

    /** Every line of the process's output (stdout and stderr) parsed as a JSON object; fails on the first that is not. */
    private static List<JsonNode> jsonLines(String output) {
        List<JsonNode> out = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(line);
                assertThat(n.isObject()).as("a JSON object: %s", line).isTrue();
                assertThat(n.path("time").asText()).isNotBlank();
                assertThat(n.path("level").asText()).isNotBlank();
                out.add(n);
            } catch (Exception e) {
                throw new AssertionError("not a JSON log line: " + line + "\nwhole output:\n" + output, e);
            }
        }
        return out;
    }

    private static JsonNode find(List<JsonNode> lines, String message) {
        return lines.stream().filter(l -> l.path("message").asText().equals(message)).findFirst()
                .orElseThrow(() -> new AssertionError("no line \"" + message + "\" in " + lines));
    }
}
