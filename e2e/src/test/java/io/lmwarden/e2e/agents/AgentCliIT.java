package io.lmwarden.e2e.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.e2e.support.JarProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real agent CLIs (Claude Code, Codex, opencode), three turns each, against the shipped router jar with
 * {@code --simulate 4}, with exactly the settings of the root README's "Try it". Each asserts that its session
 * landed on one replica for every turn and that every stream completed. A CLI that is not installed (on PATH or
 * in {@code $LMW_AGENT_BIN}) is skipped with the reason printed: {@code .ci/run} does not install them (three npm
 * packages of ~1.2 GB together, and Claude Code wants Node 22).
 */
class AgentCliIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration TURN_TIMEOUT = Duration.ofMinutes(5);
    private static JarProcess router;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        port = JarProcess.freePort();
        router = JarProcess.start("lmw.router.jar", List.of("--simulate", "4", "--port", Integer.toString(port)), Map.of());
        router.awaitHttp200(base() + "/api/replicas", Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.close();
        }
    }

    private static String base() {
        return "http://127.0.0.1:" + port;
    }

    @Test
    void claudeCode() throws Exception {
        Path cli = requireCli("claude");
        Path dir = Files.createTempDirectory("lmw-claude");
        Map<String, String> env = Map.of("HOME", dir.toString(),
                "ANTHROPIC_BASE_URL", base(),
                "ANTHROPIC_API_KEY", "dummy",
                "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8192",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        threeTurns("claude", dir, env,
                List.of(cli.toString(), "-p", "turn 1: list the files here and suggest a test"),
                List.of(cli.toString(), "-p", "--continue", "turn 2: now write the test"),
                List.of(cli.toString(), "-p", "--continue", "turn 3: run it"));
    }

    @Test
    void codex() throws Exception {
        Path cli = requireCli("codex");
        Path dir = Files.createTempDirectory("lmw-codex");
        Path home = Files.createDirectories(dir.resolve("codex-home"));
        Files.writeString(home.resolve("config.toml"), """
                model = "Qwen/Qwen3-4B-Instruct-2507"
                model_provider = "lmwarden"
                model_context_window = 32768
                check_for_update_on_startup = false

                [model_providers.lmwarden]
                name = "LM Warden"
                base_url = "http://127.0.0.1:%d/v1"
                wire_api = "responses"

                [analytics]
                enabled = false
                """.formatted(port));
        Map<String, String> env = Map.of("HOME", dir.toString(), "CODEX_HOME", home.toString());
        threeTurns("codex", dir, env,
                List.of(cli.toString(), "exec", "--skip-git-repo-check", "turn 1: list the files here and suggest a test"),
                List.of(cli.toString(), "exec", "--skip-git-repo-check", "resume", "--last", "turn 2: now write the test"),
                List.of(cli.toString(), "exec", "--skip-git-repo-check", "resume", "--last", "turn 3: run it"));
    }

    @Test
    void opencode() throws Exception {
        Path cli = requireCli("opencode");
        Path dir = Files.createTempDirectory("lmw-opencode");
        // opencode reads opencode.json from the directory it runs in, but not when that is also $HOME
        Path work = Files.createDirectories(dir.resolve("work"));
        Files.writeString(work.resolve("opencode.json"), """
                {
                  "$schema": "https://opencode.ai/config.json",
                  "provider": {
                    "lmwarden": {
                      "npm": "@ai-sdk/openai-compatible",
                      "name": "LM Warden",
                      "options": { "baseURL": "http://127.0.0.1:%d/v1" },
                      "models": {
                        "Qwen/Qwen3-4B-Instruct-2507": { "name": "Qwen3 4B via LM Warden", "limit": { "context": 32768, "output": 8192 } }
                      }
                    }
                  },
                  "model": "lmwarden/Qwen/Qwen3-4B-Instruct-2507",
                  "autoupdate": false,
                  "share": "disabled"
                }
                """.formatted(port));
        Map<String, String> env = Map.of("HOME", Files.createDirectories(dir.resolve("home")).toString());
        threeTurns("opencode", work, env,
                List.of(cli.toString(), "run", "turn 1: list the files here and suggest a test"),
                List.of(cli.toString(), "run", "--continue", "turn 2: now write the test"),
                List.of(cli.toString(), "run", "--continue", "turn 3: run it"));
    }

    @SafeVarargs
    private void threeTurns(String name, Path dir, Map<String, String> env, List<String>... turns) throws Exception {
        Set<String> before = sessions();
        for (int i = 0; i < turns.length; i++) {
            String transcript = run(dir, env, turns[i]);
            String last = transcript.strip().lines().reduce((a, b) -> b).orElse("");
            System.out.println("[" + name + "] turn " + (i + 1) + " last line: " + last.substring(0, Math.min(160, last.length())));
        }
        Set<String> created = sessions();
        created.removeAll(before);
        assertThat(created).as("%s opened a session on the router", name).isNotEmpty();
        // The conversation is the session with the most steps (opencode adds a short title request of its own).
        JsonNode conversation = null;
        for (String key : created) {
            JsonNode s = get("/api/sessions/" + key);
            if (conversation == null || s.path("steps").size() > conversation.path("steps").size()) {
                conversation = s;
            }
        }
        JsonNode steps = conversation.path("steps");
        assertThat(steps.size()).as("%s sent a request per turn in one session", name).isGreaterThanOrEqualTo(3);
        Set<String> replicas = new HashSet<>();
        steps.forEach(step -> {
            replicas.add(step.path("replica").asText());
            assertThat(step.path("completed").asBoolean()).as("%s: every stream completed: %s", name, step).isTrue();
            assertThat(step.path("status").asInt()).isEqualTo(200);
        });
        assertThat(replicas).as("%s: every turn on one replica", name).hasSize(1);
        JsonNode lastStep = steps.get(steps.size() - 1);
        assertThat(lastStep.path("cachedTokens").asLong()).as("%s: the last turn hit the prefix cache", name).isPositive();
        System.out.println("[" + name + "] session " + conversation.path("key").asText() + " (" + conversation.path("source").asText()
                + "): " + steps.size() + " requests on " + replicas + ", last one " + lastStep.path("cachedTokens").asLong()
                + " of " + lastStep.path("promptTokens").asLong() + " prompt tokens from cache");
    }

    private static String run(Path dir, Map<String, String> env, List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "turn", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().putAll(env);
        // opencode takes its project directory from $PWD, which a child process would inherit from Maven
        pb.environment().put("PWD", dir.toString());
        Process p = pb.start();
        if (!p.waitFor(TURN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command.get(0) + " did not finish within " + TURN_TIMEOUT + ":\n" + Files.readString(out));
        }
        String transcript = Files.readString(out);
        assertThat(p.exitValue()).as("%s exit code; output:%n%s", command, transcript).isZero();
        return transcript;
    }

    private static Path requireCli(String name) {
        Optional<Path> found = findOnPath(name);
        if (found.isEmpty()) {
            String reason = name + " is not installed (not on PATH nor in $LMW_AGENT_BIN); install it with npm "
                    + "(see the root README, \"Try it\") to run this test";
            System.out.println("[AgentCliIT] skipped: " + reason);
            Assumptions.abort(reason);
        }
        return found.get();
    }

    private static Optional<Path> findOnPath(String name) {
        List<String> dirs = new ArrayList<>();
        String extra = System.getenv("LMW_AGENT_BIN");
        if (extra != null && !extra.isBlank()) {
            dirs.add(extra);
        }
        dirs.addAll(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        for (String d : dirs) {
            if (d.isBlank()) {
                continue;
            }
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Set<String> sessions() throws Exception {
        Set<String> keys = new HashSet<>();
        get("/api/sessions").path("sessions").forEach(k -> keys.add(k.asText()));
        return keys;
    }

    private static JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }
}
