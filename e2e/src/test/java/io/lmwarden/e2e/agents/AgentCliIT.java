package io.lmwarden.e2e.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.e2e.support.JarProcess;
import org.junit.jupiter.api.Tag;
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
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real agent CLIs (Claude Code 2.1.197, Codex 0.171.0, opencode 1.18.33) against the shipped router jar with
 * {@code --simulate 4}, with the settings of the root README's "Try it" (but a health timeout no loaded machine
 * misses): for each agent, {@value #SESSIONS} sessions at once, three turns each (a first prompt, then two that
 * continue it). Every session must land on one
 * replica, {@code NEW} then {@code STICKY} for every later step, with every stream complete, no prefix break, and
 * its last turn served from the prefix cache. A step the client cancelled (499 {@code client_cancelled}) is the
 * client's business when its retry, the session's next step of the same kind, completed: the test prints the cancel
 * and the CLI's own lines about it. Any other ending (a 5xx, a stream the router cut, an idle timeout) fails. Claude
 * Code asks for {@code claude-opus-4-8}, a served alias the engines' metrics do not name: issue 21's regression
 * (aliases never pinned) fails here. Codex stops reading a stream at {@code response.completed}, before the body's end:
 * the router counts that as a completed answer, not a cancel.
 *
 * <p>A CLI is looked up in {@code $LMW_AGENT_BIN}, then on the PATH. Where one is missing the test is skipped with
 * the reason printed, unless {@code LMW_AGENT_CLIS_REQUIRED=1}: then it fails. {@code .ci/run} installs the three
 * at their pinned versions and sets that variable, so a failed install shows in CI as a failed test (with the
 * install's own error above it in the log), never as a skip.
 */
@Tag("agent-cli")
class AgentCliIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration TURN_TIMEOUT = Duration.ofMinutes(5);
    /** Sessions of one agent run at once: claims about sessions are tested with several. */
    static final int SESSIONS = 3;
    private static final String REQUIRED_ENV = "LMW_AGENT_CLIS_REQUIRED";
    private static final List<String> TURNS = List.of("turn 1: list the files here and suggest a test", "turn 2: now write the test",
            "turn 3: run it");
    private static JarProcess router;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        port = JarProcess.freePort();
        // A generous health timeout: at load ~30 an in-process replica busy with a cold 10k-token prefill answered
        // /health after the default 1 s, was taken out, and its sessions lost their home (their next step NEW). That
        // is a wall-clock bound on the machine, not what this test is about; a replica that dies still refuses at once.
        // The README's Try-it router with its simulated replicas ten times faster: what is tested is the CLIs' requests,
        // their sessions' placement and the prefix cache, not the replicas' speed (151 s → 78 s of CI, measured in two fresh-clone runs).
        router = JarProcess.start("lmw.router.jar", List.of("--simulate", "4", "--time-scale", "10", "--port",
                Integer.toString(port), "--health-timeout", "60s"), Map.of());
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

    /** One agent session: where it runs, its environment, and its turns' command lines. */
    private record AgentRun(Path dir, Map<String, String> env, List<List<String>> turns) {
    }

    /** What one CLI run printed, kept to show what the CLI itself said when the router saw it cancel a step. */
    private record Transcript(String session, int turn, String text) {
    }

    /** Lines of a CLI's output about a request it gave up or tried again. */
    private static final Pattern RETRY_LINE = Pattern.compile(
            "(?i)retry|reconnect|disconnect|timed? ?out|stream error|cancel|abort");

    @Test
    void claudeCode() throws Exception {
        Path cli = requireCli("claude");
        List<AgentRun> runs = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            Path dir = project("lmw-claude-" + s);
            Map<String, String> env = Map.of("HOME", dir.toString(),
                    "ANTHROPIC_BASE_URL", base(),
                    "ANTHROPIC_API_KEY", "dummy",
                    "ANTHROPIC_MODEL", "claude-opus-4-8",
                    "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "8192",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
            runs.add(new AgentRun(dir, env, List.of(
                    List.of(cli.toString(), "-p", TURNS.get(0)),
                    List.of(cli.toString(), "-p", "--continue", TURNS.get(1)),
                    List.of(cli.toString(), "-p", "--continue", TURNS.get(2)))));
        }
        runSessions("claude", cli, runs, steps -> {
            // With the model named (ANTHROPIC_MODEL), every turn's system prompt is the same: each later turn reads
            // all of the earlier one's prompt from cache (without it, turn 2 hits ~1,100 of ~19,000 tokens).
            for (int i = 1; i < steps.size(); i++) {
                JsonNode st = steps.get(i);
                assertThat(st.path("cachedTokens").asLong()).as("claude: step %d served from cache: %s", i + 1, st)
                        .isGreaterThan(st.path("promptTokens").asLong() * 9 / 10);
            }
        });
    }

    @Test
    void codex() throws Exception {
        Path cli = requireCli("codex");
        List<AgentRun> runs = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            Path dir = project("lmw-codex-" + s);
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
            runs.add(new AgentRun(dir, env, List.of(
                    List.of(cli.toString(), "exec", "--skip-git-repo-check", TURNS.get(0)),
                    List.of(cli.toString(), "exec", "--skip-git-repo-check", "resume", "--last", TURNS.get(1)),
                    List.of(cli.toString(), "exec", "--skip-git-repo-check", "resume", "--last", TURNS.get(2)))));
        }
        runSessions("codex", cli, runs, steps -> { });
    }

    @Test
    void opencode() throws Exception {
        Path cli = requireCli("opencode");
        List<AgentRun> runs = new ArrayList<>();
        for (int s = 0; s < SESSIONS; s++) {
            Path dir = Files.createTempDirectory("lmw-opencode-" + s);
            // opencode reads opencode.json from the directory it runs in, but not when that is also $HOME
            Path work = project(dir.resolve("work"));
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
            runs.add(new AgentRun(work, env, List.of(
                    List.of(cli.toString(), "run", TURNS.get(0)),
                    List.of(cli.toString(), "run", "--continue", TURNS.get(1)),
                    List.of(cli.toString(), "run", "--continue", TURNS.get(2)))));
        }
        runSessions("opencode", cli, runs, steps -> { });
    }

    /** A project directory of its own (one small file to look at), so that sessions share nothing but the router. */
    private static Path project(String name) throws IOException {
        return project(Files.createTempDirectory(name));
    }

    private static Path project(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("hello.py"), "def greet(name):\n    return 'hello ' + name\n");
        return dir;
    }

    /**
     * Runs the sessions at once, each its turns in order, then checks the router's view of every session they opened:
     * one per agent session, all on one replica, NEW then STICKY, complete, no prefix break, the last turn cached.
     */
    private void runSessions(String name, Path cli, List<AgentRun> runs, Consumer<List<JsonNode>> agentChecks) throws Exception {
        System.out.println("[" + name + "] " + version(cli));
        Set<String> before = sessions();
        List<Transcript> transcripts = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(runs.size());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (AgentRun run : runs) {
                running.add(pool.submit(() -> {
                    for (int i = 0; i < run.turns().size(); i++) {
                        String transcript = run(run.dir(), run.env(), run.turns().get(i));
                        transcripts.add(new Transcript(run.dir().getFileName().toString(), i + 1, transcript));
                        String last = transcript.strip().lines().reduce((a, b) -> b).orElse("");
                        System.out.println("[" + name + "] " + run.dir().getFileName() + " turn " + (i + 1) + " last line: "
                                + last.substring(0, Math.min(120, last.length())));
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(TURN_TIMEOUT.toMinutes() * TURNS.size() + 1, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> created = sessions();
        created.removeAll(before);
        assertThat(created).as("%s: one router session per agent session", name).hasSize(runs.size());
        Set<String> homes = new HashSet<>();
        for (String key : created) {
            JsonNode session = get("/api/sessions/" + key);
            List<JsonNode> steps = new ArrayList<>();
            session.path("steps").forEach(steps::add);
            System.out.println("[" + name + "] session " + session.path("key").asText() + " (" + session.path("source").asText() + "): "
                    + describe(steps));
            assertThat(steps.size()).as("%s sent a request per turn in one session: %s", name, session).isGreaterThanOrEqualTo(TURNS.size());
            Set<String> replicas = new HashSet<>();
            for (int i = 0; i < steps.size(); i++) {
                JsonNode step = steps.get(i);
                replicas.add(step.path("replica").asText());
                assertThat(step.path("decision").asText()).as("%s: step %d of %s", name, i + 1, session.path("key"))
                        .isEqualTo(i == 0 ? "NEW" : "STICKY");
                if (cancelledByClient(step)) {
                    int retry = retryOf(steps, i);
                    assertThat(retry).as("%s: step %d of %s was cancelled by the client and not retried with success: %s",
                            name, i + 1, session.path("key"), describe(steps)).isGreaterThan(i);
                    System.out.println("[" + name + "] session " + session.path("key").asText() + ": step " + (i + 1)
                            + " cancelled by the client (" + step + "), its retry step " + (retry + 1) + " completed; what the CLI said:"
                            + retryLines(transcripts));
                    continue;
                }
                // Anything else that is not a complete answer is the router's or the engine's fault, never the client's.
                assertThat(step.path("outcome").asText()).as("%s: step %d of %s: %s", name, i + 1, session.path("key"), step).isEqualTo("ok");
                assertThat(step.path("completed").asBoolean()).as("%s: every stream completed: %s", name, step).isTrue();
                assertThat(step.path("status").asInt()).as("%s: %s", name, step).isEqualTo(200);
            }
            assertThat(replicas).as("%s: every turn of %s on one replica", name, session.path("key")).hasSize(1);
            homes.addAll(replicas);
            assertThat(session.path("prefixBreaks").asInt()).as("%s: no prefix break in %s", name, session).isZero();
            JsonNode last = steps.get(steps.size() - 1);
            assertThat(cancelledByClient(last)).as("%s: the last step of %s was answered: %s", name, session.path("key"), last).isFalse();
            assertThat(last.path("cachedTokens").asLong()).as("%s: the last turn hit the prefix cache", name).isPositive();
            List<JsonNode> turns = steps.stream().filter(st -> !st.path("sideRequest").asBoolean() && !cancelledByClient(st)).toList();
            assertThat(turns.size()).as("%s: every turn of %s answered: %s", name, session.path("key"), describe(steps))
                    .isGreaterThanOrEqualTo(TURNS.size());
            agentChecks.accept(turns);
        }
        System.out.println("[" + name + "] " + runs.size() + " sessions at once, homes " + homes);
    }

    /** The client closed the exchange before the answer's completion event reached it (the router's 499). */
    private static boolean cancelledByClient(JsonNode step) {
        return "client_cancelled".equals(step.path("outcome").asText()) && step.path("status").asInt() == 499;
    }

    /**
     * The index of the cancelled step's retry, the session's next step of the same kind (a turn's request or a side
     * request), when that one completed; -1 when there is none or it did not complete.
     */
    private static int retryOf(List<JsonNode> steps, int cancelled) {
        boolean side = steps.get(cancelled).path("sideRequest").asBoolean();
        for (int j = cancelled + 1; j < steps.size(); j++) {
            JsonNode next = steps.get(j);
            if (next.path("sideRequest").asBoolean() == side && !cancelledByClient(next)) {
                boolean ok = "ok".equals(next.path("outcome").asText()) && next.path("status").asInt() == 200
                        && next.path("completed").asBoolean();
                return ok ? j : -1;
            }
        }
        return -1;
    }

    private static String retryLines(List<Transcript> transcripts) {
        StringBuilder out = new StringBuilder();
        synchronized (transcripts) {
            for (Transcript t : transcripts) {
                t.text().lines().filter(l -> RETRY_LINE.matcher(l).find()).forEach(l -> out.append("\n    ").append(t.session())
                        .append(" turn ").append(t.turn()).append(": ").append(l, 0, Math.min(300, l.length())));
            }
        }
        return out.length() == 0 ? " nothing about it" : out.toString();
    }

    private static String describe(List<JsonNode> steps) {
        List<String> out = new ArrayList<>();
        for (JsonNode st : steps) {
            out.add(st.path("replica").asText() + " " + st.path("decision").asText() + (st.path("sideRequest").asBoolean() ? " (side)" : "")
                    + " " + st.path("cachedTokens").asLong() + "/" + st.path("promptTokens").asLong() + " cached"
                    + ("ok".equals(st.path("outcome").asText()) ? "" : " " + st.path("status").asInt() + " " + st.path("outcome").asText()));
        }
        return String.join(", ", out);
    }

    private static String version(Path cli) {
        try {
            Process p = new ProcessBuilder(cli.toString(), "--version").redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "(--version did not answer)";
            }
            return new String(p.getInputStream().readAllBytes()).strip();
        } catch (IOException e) {
            return "(--version failed: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
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
            String reason = name + " is not installed (not in $LMW_AGENT_BIN nor on the PATH); install it with npm "
                    + "(see the root README, \"Try it\", or .ci/run) to run this test";
            if ("1".equals(System.getenv(REQUIRED_ENV))) {
                throw new AssertionError(reason + ". " + REQUIRED_ENV + "=1 (set by .ci/run): a missing CLI is a failure here; "
                        + "see the npm install's output earlier in the log");
            }
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
