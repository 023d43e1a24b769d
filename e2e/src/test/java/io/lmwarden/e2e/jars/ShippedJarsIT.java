package io.lmwarden.e2e.jars;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.e2e.support.JarProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
@Tag("processes")
class ShippedJarsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VERSION = System.getProperty("lmw.version");
    private static final String PROMPT_TEXT = "the quarterly numbers for project nightingale";
    private static final String USER_KEY = "alice.liddell@example.com";

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
            assertThat(chat(port, "tenant-key-1").statusCode()).isEqualTo(200);
        } finally {
            router.close(); // SIGTERM, then waits for the process to end
        }
        assertThat(router.output()).as("prompts and raw session keys are never logged").doesNotContain(PROMPT_TEXT)
                .doesNotContain(USER_KEY).doesNotContain("tenant-key-1");
        lines = jsonLines(router.output());
        JsonNode request = find(lines, "request");
        assertThat(request.path("logger").asText()).isEqualTo("requests");
        assertThat(request.path("api").asText()).isEqualTo("/v1/chat/completions");
        assertThat(request.path("session").asText()).as("a hash of the user field, not the e-mail").isNotBlank();
        assertThat(request.path("sessionKeySource").asText()).isNotBlank();
        assertThat(request.path("tenant").asText()).as("the API key names the tenant, shown as its hash").isNotBlank();
        assertThat(request.path("replica").asText()).startsWith("sim-");
        assertThat(request.path("decision").asText()).isEqualTo("NEW");
        assertThat(request.path("status").asInt()).isEqualTo(200);
        assertThat(request.path("ttfbMs").asDouble()).isPositive();
        assertThat(request.path("promptTokens").asInt()).isPositive();
        assertThat(request.path("outputTokens").asInt()).isBetween(1, 3);
        assertThat(request.path("outcome").asText()).isNotBlank();
        assertThat(lines.indexOf(request)).as("the request's line comes before the shutdown's")
                .isLessThan(lines.indexOf(find(lines, "shutdown complete")));
        JsonNode listening = find(lines, "router listening");
        assertThat(listening.path("port").asInt()).isEqualTo(port);
        assertThat(listening.path("version").asText()).isEqualTo(VERSION);
        if (System.getProperty("os.name").equals("Linux") && List.of("amd64", "aarch64").contains(System.getProperty("os.arch"))) {
            assertThat(listening.path("transport").asText()).as("the shaded jar carries epoll's native library, and it loads")
                    .isEqualTo("epoll");
        }
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

    @Test
    void routerWithTextLogsWritesOneKeyValueLinePerRequestWithoutThePrompt() throws Exception {
        int port = JarProcess.freePort();
        JarProcess router = JarProcess.start("lmw.router.jar", List.of("--simulate", "1", "--port", Integer.toString(port),
                "--host", "127.0.0.1", "--shutdown-grace", "2s"), Map.of());
        try {
            router.awaitHttp200("http://127.0.0.1:" + port + "/readyz", Duration.ofSeconds(60));
            for (int i = 0; i < 3; i++) {
                assertThat(chat(port, null).statusCode()).isEqualTo(200);
            }
        } finally {
            router.close();
        }
        List<String> requests = router.output().lines().filter(l -> l.contains(" INFO requests request ")).toList();
        assertThat(requests).as("one line per request: %s", router.output()).hasSize(3);
        assertThat(requests.get(1)).contains("api=/v1/chat/completions", "tenant=-", "replica=sim-0", "decision=STICKY",
                "status=200").matches("\\S+ INFO requests request .*session=\\S+ .*ttfb_ms=[0-9.]+ .*output_tokens=[1-3] outcome=\\S+");
        assertThat(router.output()).doesNotContain(PROMPT_TEXT).doesNotContain(USER_KEY);
    }

    /** One chat request whose session key is the {@code user} field (an e-mail, as clients send it). */
    private static HttpResponse<String> chat(int port, String apiKey) throws Exception {
        String body = "{\"model\":\"Qwen/Qwen3-4B-Instruct-2507\",\"max_tokens\":3,\"user\":\"" + USER_KEY + "\","
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT_TEXT + "\"}]}";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30)).header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (apiKey != null) {
            b.header("authorization", "Bearer " + apiKey);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
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
