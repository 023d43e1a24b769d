package io.lmwarden.router.ui;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.AdmissionSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.stats.RouterMetrics;
import io.lmwarden.router.session.SessionKeySource;
import io.lmwarden.router.testing.AgentSession;
import io.lmwarden.router.testing.AgentWorkload;
import io.lmwarden.router.testing.Await;
import io.lmwarden.router.testing.Http;
import io.lmwarden.router.testing.Prometheus;
import io.lmwarden.router.testing.Prometheus.Sample;
import io.lmwarden.router.testing.Prometheus.Target;
import io.lmwarden.router.testing.RouterUnderTest;
import io.lmwarden.router.testing.SimFaults;
import io.lmwarden.router.testing.SimPool;
import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimProfile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A real Prometheus scrapes two routers and four simulated replicas while one router serves known
 * traffic (agent sessions, one spill, one prefix break, one malformed request); then every query of
 * deploy/grafana/lm-warden.json is evaluated through Prometheus's HTTP API and its result compared with
 * what was done. Rates are read over a window that covers the whole run, at the instant of the
 * router's last scrape, so {@code rate × window} is the count of events: no extrapolation, no guess.
 *
 * <p>The series carry {@code namespace}, {@code model_deployment} and {@code pod} as the chart's
 * ServiceMonitor and PodMonitor put them, so the dashboard's variables are exercised as in a cluster.
 *
 * <p>Admission has a scene of its own, in another namespace so it adds nothing to the other panels: a
 * router with admission in front of one small replica, where two sessions fill the KV budget, two more
 * wait in the queue until the first two go idle, and a fifth finds the queue full.
 *
 * <p>A new panel needs a line in {@link #checks} or {@link #saturatedChecks}; the test fails for any query without one.
 */
@Tag("prometheus")
class PrometheusDashboardTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "lm-warden.json");
    static final String NAMESPACE = "agents";
    static final String MODEL_DEPLOYMENT = "qwen";
    static final String ROUTER_POD = "qwen-router-0";
    static final String IDLE_ROUTER_POD = "qwen-router-1";
    private static final String ROUTER_JOB = "lmw-router";
    private static final String REPLICA_JOB = "vllm";
    static final String SATURATED_NAMESPACE = "saturated";
    static final String SATURATED_DEPLOYMENT = "qwen-small";
    static final String SATURATED_POD = "qwen-small-router-0";
    /**
     * 440 blocks × 16 = 7,040 tokens, a budget of 6,336: a shared ~1,000-token system prompt and two sessions of ~2,000.
     * A host KV tier of 0.4 GiB (2,912 tokens) for the tier's panels: smaller than the GPU cache, so the budget stays the GPU's.
     */
    private static final SimProfile TWO_SESSIONS = SimProfile.defaultProfile().withKvBlocks(440).withKvOffloadGib(0.4);
    /** Long enough for the queue to be scraped holding two, and for the residents to outlast the final scrape on a busy machine. */
    private static final Duration RESIDENCY_IDLE = Duration.ofSeconds(7);
    private static final int SATURATED_QUEUE_MAX = 2;
    /** Longer than the whole test, so a rate over it is the run's increase divided by it. */
    private static final String WINDOW = "10m";
    private static final double WINDOW_SECONDS = 600;
    private static final int REPLICAS = 4;

    private static SimPool sims;
    private static RouterUnderTest router;
    private static LmWardenRouter idleRouter;
    private static SimPool smallSims;
    private static RouterUnderTest saturated;
    private static Prometheus prometheus;
    private static Path binary;

    /** What the traffic did, counted by the test itself or read from the router's own session log. */
    private static final Map<String, Integer> decisions = new TreeMap<>();
    private static final Map<List<String>, Integer> spills = new HashMap<>();
    private static List<JsonNode> steps;
    private static Map<String, Double> exposition;
    private static JsonNode replicasView;
    private static double at;
    /** What the admission scene did: queue waits of the requests admitted from the queue, the HTTP status of the turned-away one. */
    private static final List<Double> queueWaitsSeconds = new ArrayList<>();
    private static int queueFullStatus;
    private static int peakQueue;
    private static JsonNode saturatedView;
    private static double atSaturated;

    @BeforeAll
    static void runTrafficUnderPrometheus() throws Exception {
        // The fixture is this class's static state, filled once for all its tests: start it from nothing.
        decisions.clear();
        spills.clear();
        queueWaitsSeconds.clear();
        binary = Prometheus.binary().orElse(null);
        if (binary == null) {
            String why = "no prometheus binary on the PATH (or $" + Prometheus.BINARY_ENV
                    + "); install Debian's package with `apt-get install prometheus` (.ci/run does) to run this test";
            System.out.println("SKIPPED PrometheusDashboardTest: " + why);
            Assumptions.abort(why);
        }
        System.out.println("PrometheusDashboardTest uses " + Prometheus.version(binary));
        sims = SimPool.start(REPLICAS, SimProfile.defaultProfile(), 20);
        router = RouterUnderTest.start(sims, c -> c.with(PlacementSettings.POLICY, "affinity").withSpillThreshold(SpillThreshold.fixed(2)));
        idleRouter = LmWardenRouter.start(RouterConfig.forReplicas(sims.routerEntries()).with(ServerSettings.HOST, "127.0.0.1").withPort(0)
                .withScrapeInterval(Duration.ofMillis(100)));
        List<Target> targets = new ArrayList<>();
        targets.add(new Target(ROUTER_JOB, hostPort(router.url()), labels(ROUTER_POD)));
        targets.add(new Target(ROUTER_JOB, hostPort(idleRouter.url()), labels(IDLE_ROUTER_POD)));
        for (int i = 0; i < REPLICAS; i++) {
            targets.add(new Target(REPLICA_JOB, hostPort(sims.url(i)), labels("sim-" + i)));
        }
        smallSims = SimPool.start(1, TWO_SESSIONS, 20);
        saturated = RouterUnderTest.start(smallSims, c -> c.with(PlacementSettings.POLICY, "affinity").with(AdmissionSettings.ADMISSION, true).with(AdmissionSettings.ENGAGE, AdmissionSettings.ENGAGE_ALWAYS)
                .with(AdmissionSettings.QUEUE_MAX, SATURATED_QUEUE_MAX).with(AdmissionSettings.RESIDENCY_IDLE, RESIDENCY_IDLE).with(AdmissionSettings.QUEUE_TIMEOUT, Duration.ofMinutes(2)));
        targets.add(new Target(ROUTER_JOB, hostPort(saturated.url()), saturatedLabels(SATURATED_POD)));
        targets.add(new Target(REPLICA_JOB, hostPort(smallSims.url(0)), saturatedLabels("small-sim-0")));
        prometheus = Prometheus.start(binary, targets, Duration.ofSeconds(1));
        // Every counter must be in the TSDB at 0 before its first event, or rate() cannot see that event.
        prometheus.awaitScrapes(ROUTER_JOB, 2, Duration.ofSeconds(30));
        prometheus.awaitScrapes(REPLICA_JOB, 2, Duration.ofSeconds(30));

        Http http = new Http();
        AgentWorkload.Result work = new AgentWorkload(4, 3, AgentSession.Identity.CLAUDE_CODE_HEADER).run(router, "prom");
        assertThat(work.statuses()).containsOnly(200);
        work.decisionsBySession().forEach((session, list) -> {
            List<String> where = work.replicasBySession().get(session);
            for (int i = 0; i < list.size(); i++) {
                count(list.get(i), i == 0 ? null : where.get(i - 1), where.get(i));
            }
        });
        causeASpill(http);
        causeAPrefixBreak(http);
        assertThat(http.post(router.url() + "/v1/messages", "{\"model\": \"m\", \"messages\": [", Map.of()).status()).isEqualTo(400);

        prometheus.awaitScrapes(ROUTER_JOB, 3, Duration.ofSeconds(30));
        prometheus.awaitScrapes(REPLICA_JOB, 3, Duration.ofSeconds(30));
        at = prometheus.query("timestamp(up{job=\"" + ROUTER_JOB + "\", pod=\"" + ROUTER_POD + "\"})").get(0).value();
        exposition = parse(http.get(router.url() + "/metrics").body());
        replicasView = JSON.readTree(http.get(router.url() + "/api/replicas").body());
        steps = new ArrayList<>();
        for (JsonNode key : JSON.readTree(http.get(router.url() + "/api/sessions").body()).path("sessions")) {
            JSON.readTree(http.get(router.url() + "/api/sessions/" + URLEncoder.encode(key.asText(), StandardCharsets.UTF_8))
                    .body()).path("steps").forEach(steps::add);
        }
        saturate(http);
    }

    /**
     * Two sessions fill the small replica's KV budget with steps in flight; two newcomers wait in the queue, a fifth
     * finds the queue full; the first two's steps end, and as sessions that pause like the prior ({@link #RESIDENCY_IDLE})
     * they give up their room to the two waiting. Then
     * the two admitted sessions take one more step each, so they are resident when Prometheus scrapes.
     */
    /**
     * A step of the session on a socket of its own, which the replica holds before its first byte (a stall armed in the
     * simulator): admitted and in flight until the socket is closed.
     */
    private static Socket holdStream(AgentSession session) throws Exception {
        URI u = URI.create(saturated.url());
        Socket socket = new Socket(u.getHost(), u.getPort());
        byte[] b = session.nextBody(8, true).getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n");
        session.headers().forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("Content-Length: ").append(b.length).append("\r\n\r\n");
        OutputStream out = socket.getOutputStream();
        out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
        return socket;
    }

    private static void saturate(Http http) throws Exception {
        String system = AgentSession.sharedSystem(4000);
        List<AgentSession> sessions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sessions.add(new AgentSession("sat-" + i + "-5e55-10ff", AgentSession.Identity.CLAUDE_CODE_HEADER, system, 8000, 500 + i));
        }
        // Two residents whose steps stay in flight (the replica holds them) until the test lets go: no newcomer takes their
        // room meanwhile.
        assertThat(http.post(smallSims.url(0) + "/sim/faults", "{\"stallNext\":2,\"stallMs\":120000}", Map.of()).status()).isEqualTo(200);
        List<Socket> holders = new ArrayList<>();
        for (AgentSession s : sessions.subList(0, 2)) {
            holders.add(holdStream(s));
        }
        long residentDeadline = System.nanoTime() + io.lmwarden.router.testing.Await.HANG_GUARD.toNanos();
        while (JSON.readTree(http.get(saturated.url() + "/api/replicas").body()).path("queue").path("residentSessions").asInt() < 2) {
            assertThat(System.nanoTime()).as("two residents admitted").isLessThan(residentDeadline);
            RouterUnderTest.sleep(20);
        }
        List<CompletableFuture<Http.Reply>> waiting = new ArrayList<>();
        for (AgentSession s : sessions.subList(2, 4)) {
            String body = s.nextBody(8, false);
            waiting.add(CompletableFuture.supplyAsync(() -> http.post(saturated.url() + "/v1/messages", body, s.headers())));
        }
        long deadline = System.nanoTime() + io.lmwarden.router.testing.Await.HANG_GUARD.toNanos();
        while (JSON.readTree(http.get(saturated.url() + "/api/replicas").body()).path("queue").path("length").asInt() < SATURATED_QUEUE_MAX) {
            assertThat(System.nanoTime()).as("two requests queued").isLessThan(deadline);
            RouterUnderTest.sleep(20);
        }
        peakQueue = JSON.readTree(http.get(saturated.url() + "/api/replicas").body()).path("queue").path("length").asInt();
        AgentSession late = sessions.get(4);
        queueFullStatus = http.post(saturated.url() + "/v1/messages", late.nextBody(8, false), late.headers()).status();
        // Prometheus sees the full queue before the residents let go.
        long seenDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (prometheus.query("max_over_time(lmw_queue_length{job=\"" + ROUTER_JOB + "\", pod=\"" + SATURATED_POD + "\"}[1m])")
                .stream().mapToDouble(Sample::value).findFirst().orElse(0) < SATURATED_QUEUE_MAX) {
            assertThat(System.nanoTime()).as("Prometheus scrapes the full queue").isLessThan(seenDeadline);
            RouterUnderTest.sleep(100);
        }
        // The residents' steps end; paused, sessions that pause like the prior (7 s, past the break-even) give up their room.
        for (Socket h : holders) {
            h.close();
        }
        for (int i = 0; i < waiting.size(); i++) {
            Http.Reply r = waiting.get(i).get();
            assertThat(r.status()).as("queued request %d", i).isEqualTo(200);
            // The header truncates to the millisecond; the histogram has the nanoseconds. Mid-millisecond is in the
            // histogram's bucket unless the wait was a bound to the nanosecond: 500 ms in the header is 500.x ms, above 0.5 s.
            queueWaitsSeconds.add((Long.parseLong(r.header("x-lmw-queue-wait-ms")) + 0.5) / 1000.0);
            sessions.get(2 + i).append(AgentSession.replyText(r.body()), 200);
        }
        for (AgentSession s : sessions.subList(2, 4)) {
            assertThat(http.post(saturated.url() + "/v1/messages", s.nextBody(8, false), s.headers()).status()).isEqualTo(200);
        }
        // This router's first scrape after the last step, well within the residency idle time: the residents are still
        // there. (Waiting for the job would do with another router's scrape when this one is ahead.)
        double stepsDone = System.currentTimeMillis() / 1000.0;
        long scrapeDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        do {
            assertThat(System.nanoTime()).as("a scrape of %s after the last step; targets: %s", SATURATED_POD, prometheus.targets())
                    .isLessThan(scrapeDeadline);
            RouterUnderTest.sleep(100);
            // The timestamp of a series the admission panels read, not of up: the instant its latest sample was taken.
            atSaturated = prometheus.query("timestamp(lmw_queue_wait_seconds_count{job=\"" + ROUTER_JOB + "\", pod=\"" + SATURATED_POD + "\"})")
                    .stream().mapToDouble(Sample::value).findFirst().orElse(0);
        } while (atSaturated <= stepsDone);
        // And the small replica's own scrape after the last step, at or before that instant: the engine panels read its
        // counters, and a router scrape ahead of it left them without the steps' increase (a host-tier hit rate of NaN).
        double atSmallSim;
        do {
            assertThat(System.nanoTime()).as("a scrape of small-sim-0 after the last step; targets: %s", prometheus.targets())
                    .isLessThan(scrapeDeadline);
            RouterUnderTest.sleep(100);
            atSmallSim = prometheus.query("timestamp(vllm:external_prefix_cache_queries_total{job=\"" + REPLICA_JOB + "\", pod=\"small-sim-0\"})")
                    .stream().mapToDouble(Sample::value).findFirst().orElse(0);
        } while (atSmallSim <= stepsDone);
        // Evaluated at a router sample's own instant (past it, rate() would extrapolate the router's counters), one at
        // or after the replica's.
        while (atSaturated < atSmallSim) {
            assertThat(System.nanoTime()).as("a scrape of %s after small-sim-0's; targets: %s", SATURATED_POD, prometheus.targets())
                    .isLessThan(scrapeDeadline);
            RouterUnderTest.sleep(100);
            atSaturated = prometheus.query("timestamp(lmw_queue_wait_seconds_count{job=\"" + ROUTER_JOB + "\", pod=\"" + SATURATED_POD + "\"})")
                    .stream().mapToDouble(Sample::value).findFirst().orElse(0);
        }
        saturatedView = JSON.readTree(http.get(saturated.url() + "/api/replicas").body());
    }

    /** The SpillTest scene: two client-pinned long requests hold the home at the threshold; the next step spills. */
    private static void causeASpill(Http http) throws Exception {
        AgentSession session = new AgentSession("prom-spill", AgentSession.Identity.CLAUDE_CODE_HEADER,
                AgentSession.sharedSystem(2000), 2000, 7);
        Http.Reply first = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
        count(first.decision(), null, first.replica());
        String home = first.replica();
        session.append(AgentSession.replyText(first.body()), 400);
        // The home's replica holds the two pinned requests before their first byte until the spilled step is placed:
        // both are in flight when it is, however slow the machine.
        SimFaults homeFaults = SimFaults.of(sims, home);
        homeFaults.holdNext(2);
        List<CompletableFuture<Http.Reply>> load = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                String body = new AgentSession("prom-load-" + i, AgentSession.Identity.NONE, "load", 200, 60 + i).nextBody(8, false);
                load.add(CompletableFuture.supplyAsync(() -> http.post(router.url() + "/v1/messages", body, Map.of("X-LMW-Replica", home))));
            }
            homeFaults.awaitHeld(2);
            awaitInFlight(http, home, 2);
            Http.Reply spilled = http.post(router.url() + "/v1/messages", session.nextBody(8, false), session.headers());
            assertThat(spilled.decision()).as("step with %s holding 2 in flight, threshold 2", home).isEqualTo("SPILL");
            count(spilled.decision(), home, spilled.replica());
        } finally {
            homeFaults.release();
        }
        for (CompletableFuture<Http.Reply> f : load) {
            Http.Reply r = f.get();
            count(r.decision(), null, r.replica());
        }
    }

    /** The DiagnosticsTest scene: a date inserted into the system prompt at step 2. */
    private static void causeAPrefixBreak(Http http) throws Exception {
        String fixed = "You are a careful coding agent. ".repeat(32);
        String user = "fix the failing test in router/src " + "detail ".repeat(100);
        Map<String, String> h = Map.of("X-Claude-Code-Session-Id", "prom-break");
        for (String system : List.of(fixed + "Follow the rules.", fixed + "Today is 2026-11-30. Follow the rules.")) {
            String body = "{\"model\":\"" + AgentSession.MODEL + "\",\"max_tokens\":8,\"system\":" + JSON.writeValueAsString(system)
                    + ",\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(user) + "}]}";
            Http.Reply r = http.post(router.url() + "/v1/messages", body, h);
            assertThat(r.status()).isEqualTo(200);
            count(r.decision(), null, r.replica());
        }
    }

    private static void count(String decision, String from, String to) {
        decisions.merge(decision, 1, Integer::sum);
        if ("SPILL".equals(decision)) {
            spills.merge(List.of(from, to), 1, Integer::sum);
        }
    }

    private static void awaitInFlight(Http http, String replica, int n) {
        Await.until("replica " + replica + " with " + n + " requests in flight", () -> {
            for (JsonNode r : readJson(http.get(router.url() + "/api/replicas").body()).path("replicas")) {
                if (r.path("id").asText().equals(replica) && r.path("inFlight").asInt() == n) {
                    return true;
                }
            }
            return false;
        }, () -> http.get(router.url() + "/api/replicas").body());
    }

    private static JsonNode readJson(String body) {
        try {
            return JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
        if (idleRouter != null) {
            idleRouter.close();
        }
        if (saturated != null) {
            saturated.close();
        }
        if (router != null) {
            router.close();
        }
    }

    @Test
    void everyQueryOfTheDashboardShowsWhatTheTrafficDid() throws Exception {
        assertThat(steps).as("the session log holds every placed request").hasSize(decisions.values().stream().mapToInt(i -> i).sum());
        Map<String, Consumer<List<Sample>>> checks = checks();
        Map<String, Consumer<List<Sample>>> saturatedChecks = saturatedChecks();
        List<String> unchecked = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        for (JsonNode panel : JSON.readTree(DASHBOARD.toFile()).path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String key = panel.path("title").asText() + " / " + target.path("refId").asText();
                boolean ofAdmission = saturatedChecks.containsKey(key);
                Consumer<List<Sample>> check = ofAdmission ? saturatedChecks.get(key) : checks.get(key);
                if (check == null) {
                    unchecked.add(key);
                    continue;
                }
                // Grafana with one namespace chosen: the admission scene's, or the rest's.
                String promql = substitute(target.path("expr").asText(), ofAdmission ? SATURATED_NAMESPACE : NAMESPACE, ".*");
                List<Sample> result = prometheus.query(promql, ofAdmission ? atSaturated : at);
                assertThat(result).as("%s: %s returns data", key, promql).isNotEmpty();
                try {
                    check.accept(result);
                } catch (AssertionError e) {
                    throw new AssertionError(key + ": " + promql + " returned " + result + "\n" + e.getMessage(), e);
                }
                checked.add(key);
            }
        }
        assertThat(unchecked).as("dashboard queries this test has no expectation for: add one to checks()").isEmpty();
        List<String> expected = new ArrayList<>(checks.keySet());
        expected.addAll(saturatedChecks.keySet());
        assertThat(expected).as("expectations for queries the dashboard no longer has").containsExactlyInAnyOrderElementsOf(checked);
    }

    @Test
    void theRouterVariableSeparatesTheTwoRouters() throws Exception {
        String affinityPanel = null;
        for (JsonNode panel : JSON.readTree(DASHBOARD.toFile()).path("panels")) {
            if (panel.path("title").asText().startsWith("Affinity table entries")) {
                affinityPanel = panel.path("targets").get(0).path("expr").asText();
            }
        }
        assertThat(affinityPanel).isNotNull();
        List<Sample> idle = prometheus.query(substitute(affinityPanel, ".*", IDLE_ROUTER_POD), at);
        assertThat(idle).extracting(s -> s.labels().get("pod")).containsExactly(IDLE_ROUTER_POD);
        assertThat(idle.get(0).value()).isZero();
        List<Sample> busy = prometheus.query(substitute(affinityPanel, ".*", ROUTER_POD), at);
        assertThat(busy).extracting(s -> s.labels().get("pod")).containsExactly(ROUTER_POD);
        assertThat(busy.get(0).value()).isEqualTo(replicasView.path("affinityEntries").asDouble()).isPositive();
    }

    @Test
    void theDashboardVariablesListWhatPrometheusHolds() throws Exception {
        Map<String, List<String>> expected = Map.of("namespace", List.of(NAMESPACE, SATURATED_NAMESPACE),
                "model_deployment", List.of(MODEL_DEPLOYMENT, SATURATED_DEPLOYMENT),
                "router", List.of(ROUTER_POD, IDLE_ROUTER_POD, SATURATED_POD));
        Pattern labelValues = Pattern.compile("label_values\\((.*), *([a-z_]+)\\)");
        int seen = 0;
        for (JsonNode v : JSON.readTree(DASHBOARD.toFile()).path("templating").path("list")) {
            if (!"query".equals(v.path("type").asText())) {
                continue;
            }
            Matcher m = labelValues.matcher(v.path("query").path("query").asText());
            assertThat(m.matches()).as("variable %s is a label_values query", v.path("name").asText()).isTrue();
            // Grafana runs label_values(q, l) as a series query; "count by (l) (q)" asks Prometheus the same.
            List<Sample> values = prometheus.query("count by (" + m.group(2) + ") (" + substitute(m.group(1), ".*", ".*") + ")", at);
            assertThat(values).extracting(s -> s.labels().get(m.group(2)))
                    .as("values of $%s", v.path("name").asText())
                    .containsExactlyInAnyOrderElementsOf(expected.get(v.path("name").asText()));
            seen++;
        }
        assertThat(seen).isEqualTo(3);
    }

    @Test
    void promtoolFindsNothingWrongWithTheRoutersExposition() {
        Path promtool = binary.resolveSibling("promtool");
        Assumptions.assumeTrue(promtool.toFile().canExecute(), "promtool not next to " + binary);
        String exposition = new Http().get(router.url() + "/metrics").body();
        assertThat(Prometheus.checkMetrics(promtool, exposition)).as("promtool check metrics").isEmpty();
    }

    @Test
    void histogramsHaveFewSeriesPerReplica() {
        long ttfbSeries = exposition.keySet().stream().filter(k -> k.startsWith("lmw_ttfb_seconds") && k.contains("replica=\"sim-0\"")).count();
        long overheadSeries = exposition.keySet().stream().filter(k -> k.startsWith("lmw_router_overhead_seconds")).count();
        assertThat(ttfbSeries).as("TTFB series of one replica").isLessThanOrEqualTo(20);
        assertThat(overheadSeries).as("router overhead series").isLessThanOrEqualTo(20);
    }

    /**
     * A spill pair's series appears with its first spill (N×(N−1) pairs at 0 were most of the series at 32
     * replicas); the per-replica totals the rates read exist from the start, at 0 where nothing spilled.
     */
    @Test
    void spillPairsAppearWithTheirFirstSpillAndTheTotalsExistFromTheStart() {
        Map<List<String>, Double> pairs = new HashMap<>();
        exposition.forEach((k, v) -> {
            if (k.startsWith("lmw_spills_total{")) {
                pairs.put(List.of(k.replaceAll(".*from=\"([^\"]+)\".*", "$1"), k.replaceAll(".*to=\"([^\"]+)\".*", "$1")), v);
            }
        });
        Map<List<String>, Double> expected = new HashMap<>();
        spills.forEach((pair, n) -> expected.put(pair, n.doubleValue()));
        assertThat(pairs).isEqualTo(expected);
        for (int i = 0; i < REPLICAS; i++) {
            String from = "sim-" + i;
            assertThat(exposition.get("lmw_spills_out_total{replica=\"" + from + "\"}")).as("spills out of %s", from)
                    .isEqualTo(spills.entrySet().stream().filter(e -> e.getKey().get(0).equals(from)).mapToDouble(Map.Entry::getValue).sum());
            assertThat(exposition.get("lmw_spills_in_total{replica=\"" + from + "\"}")).as("spills into %s", from)
                    .isEqualTo(spills.entrySet().stream().filter(e -> e.getKey().get(1).equals(from)).mapToDouble(Map.Entry::getValue).sum());
        }
        assertThat(exposition.keySet().stream().filter(k -> k.startsWith("lmw_requests_total{") && k.contains("replica=\"sim-0\"")))
                .as("one series per decision").hasSize(io.lmwarden.router.placement.Decision.values().length);
    }

    /** Expectations by "panel title / refId". */
    private static Map<String, Consumer<List<Sample>>> checks() {
        Map<String, Consumer<List<Sample>>> c = new LinkedHashMap<>();
        int placed = decisions.values().stream().mapToInt(i -> i).sum();
        int newSessions = decisions.getOrDefault("NEW", 0);
        c.put("Sticky % / A", r -> assertThat(single(r)).isCloseTo((double) decisions.getOrDefault("STICKY", 0) / (placed - newSessions), within(1e-9)));
        c.put("Cached share of prompt tokens / A", r -> assertThat(single(r)).isCloseTo(
                sum("lmw_prompt_tokens_total", "kind=\"cached\"") / sum("lmw_prompt_tokens_total"), within(1e-9)));
        c.put("Engine prefix hit rate / A", r -> {
            long[] qh = sims.prefixCounters();
            assertThat(single(r)).isCloseTo((double) qh[1] / qh[0], within(0.02));
        });
        c.put("In flight / A", r -> assertThat(single(r)).isZero());
        c.put("Sticky sessions / A", r -> assertThat(single(r)).isEqualTo(sumOverReplicas("stickySessions")).isPositive());
        c.put("TTFB p95 / A", r -> assertWithinTheBucketOf(single(r), quantile("ttfbMillis", 0.95) / 1000, ttfbBuckets()));
        c.put("Prefix-cache hit rate by replica (engine) / A", r -> {
            assertThat(r).extracting(s -> s.labels().get("pod")).containsExactlyInAnyOrder("sim-0", "sim-1", "sim-2", "sim-3");
            for (Sample s : r) {
                int i = Integer.parseInt(s.labels().get("pod").substring(4));
                long[] qh = sims.prefixCounters(i);
                assertThat(s.value()).as(s.labels().get("pod")).isCloseTo((double) qh[1] / qh[0], within(1e-6));
            }
        });
        c.put("Cached share of prompt tokens by replica (router) / A", r -> {
            assertThat(r).hasSize(REPLICAS);
            for (Sample s : r) {
                String rep = "replica=\"" + s.labels().get("replica") + "\"";
                double expected = sum("lmw_prompt_tokens_total", rep, "kind=\"cached\"") / sum("lmw_prompt_tokens_total", rep);
                assertThat(s.value()).as(rep).isCloseTo(expected, within(1e-9));
            }
        });
        c.put("Prompt tokens per second: cached vs computed / A", r -> assertCount(single(r), sum("lmw_prompt_tokens_total", "kind=\"cached\"")));
        c.put("Prompt tokens per second: cached vs computed / B", r -> assertCount(single(r), sum("lmw_prompt_tokens_total", "kind=\"computed\"")));
        c.put("Output tokens per second / A", r -> perLabel(r, "replica", REPLICAS, v -> sum("lmw_output_tokens_total", "replica=\"" + v + "\"")));
        c.put("TTFB p50 / p95 (router) / A", r -> assertWithinTheBucketOf(single(r), quantile("ttfbMillis", 0.5) / 1000, ttfbBuckets()));
        c.put("TTFB p50 / p95 (router) / B", r -> assertWithinTheBucketOf(single(r), quantile("ttfbMillis", 0.95) / 1000, ttfbBuckets()));
        c.put("Placement decisions per second / A", r -> perLabel(r, "decision", io.lmwarden.router.placement.Decision.values().length,
                d -> decisions.getOrDefault(d, 0)));
        c.put("In flight by replica / A", r -> perLabel(r, "replica", REPLICAS, v -> 0, 1));
        c.put("Sticky sessions by replica / A", r -> perLabel(r, "replica", REPLICAS, v -> replicaField(v, "stickySessions"), 1));
        c.put("Spills per second, by home replica / A", r -> {
            perLabel(r, "replica", REPLICAS, v -> spills.entrySet().stream().filter(e -> e.getKey().get(0).equals(v))
                    .mapToInt(Map.Entry::getValue).sum());
            assertThat(spills.values().stream().mapToInt(i -> i).sum()).isPositive();
        });
        c.put("Spill destinations since router start / A", r -> {
            assertThat(r).as("a series for each pair that spilled, none for the others").hasSize(spills.size());
            for (Sample s : r) {
                assertThat(s.value()).as("%s", s.labels())
                        .isEqualTo((double) spills.getOrDefault(List.of(s.labels().get("from"), s.labels().get("to")), 0)).isPositive();
            }
        });
        c.put("Prefix breaks by segment / A", r -> perLabel(r, "segment", RouterMetrics.PREFIX_BREAK_SEGMENTS.size(),
                seg -> stepsWhere(s -> !s.path("prefixBreak").isNull() && segment(s).equals(seg))));
        c.put("Cache misses and queue ate gain / A", r -> perLabel(r, "replica", REPLICAS,
                v -> stepsWhere(s -> s.path("replica").asText().equals(v) && s.path("cacheMiss").asBoolean())));
        c.put("Cache misses and queue ate gain / B", r -> perLabel(r, "replica", REPLICAS,
                v -> stepsWhere(s -> s.path("replica").asText().equals(v) && s.path("queueAteGain").asBoolean())));
        c.put("Stale-metrics fallbacks / A", r -> perLabel(r, "replica", REPLICAS,
                v -> sum("lmw_stale_metrics_fallbacks_total", "replica=\"" + v + "\"")));
        c.put("Request errors by kind / A", r -> perLabel(r, "kind", RouterMetrics.ERROR_KINDS.size(), k -> k.equals("bad_request") ? 1 : 0));
        c.put("Retries by failed replica / A", r -> perLabel(r, "failed_replica", REPLICAS, v -> 0));
        c.put("Streams not completed / A", r -> perLabel(r, "replica", REPLICAS,
                v -> stepsWhere(s -> s.path("replica").asText().equals(v) && !s.path("completed").asBoolean())));
        c.put("Session key sources / A", r -> perLabel(r, "source", SessionKeySource.values().length,
                src -> stepsWhere(s -> s.path("sessionKeySource").asText().equals(src))));
        c.put("Router overhead p95 / A", r -> {
            // Seconds-scale buckets (the old count-scale ones put a 2 ms p95 at 0.95 s), and the estimate in the
            // bucket of the true p95. How fast the router is here depends on the machine's load: no bound on it.
            assertThat(exposition.keySet().stream().filter(k -> k.startsWith("lmw_router_overhead_seconds_bucket{"))
                    .map(k -> k.replaceAll(".*le=\"([^\"]+)\".*", "$1")).filter(le -> !le.equals("+Inf"))
                    .mapToDouble(Double::parseDouble).sorted().toArray()).containsExactly(OVERHEAD_BUCKETS);
            assertWithinTheBucketOf(single(r), quantile("routerMillis", 0.95) / 1000, OVERHEAD_BUCKETS);
        });
        c.put("Affinity table entries by router / A", r -> perLabel(r, "pod", 2,
                pod -> pod.equals(ROUTER_POD) ? replicasView.path("affinityEntries").asDouble() : 0, 1));
        c.put("Replicas ready, per router / A", r -> perLabel(r, "pod", 2, pod -> REPLICAS, 1));
        c.put("Router heap used / A", r -> {
            assertThat(r).hasSize(2);
            r.forEach(s -> assertThat(s.value()).isPositive());
        });
        c.put("Router CPU / A", r -> {
            assertThat(r).hasSize(2);
            r.forEach(s -> assertThat(s.value()).isBetween(0.0, 1.0));
        });
        return c;
    }

    /** Expectations for the admission panels, evaluated in the admission scene's namespace at its last scrape. */
    private static Map<String, Consumer<List<Sample>>> saturatedChecks() {
        Map<String, Consumer<List<Sample>>> c = new LinkedHashMap<>();
        JsonNode queue = saturatedView.path("queue");
        JsonNode replica = saturatedView.path("replicas").get(0);
        c.put("Admission queue length (peak), per router / A", r -> {
            assertThat(peakQueue).isEqualTo(SATURATED_QUEUE_MAX);
            assertThat(r).extracting(s -> s.labels().get("pod")).containsExactly(SATURATED_POD);
            assertThat(single(r)).as("the queue held two requests for longer than a scrape interval").isEqualTo(SATURATED_QUEUE_MAX);
        });
        c.put("Admission queue wait p50 / p95 / A", r -> assertWithinTheBucketOf(single(r), median(queueWaitsSeconds), QUEUE_WAIT_BUCKETS));
        c.put("Admission queue wait p50 / p95 / B", r -> assertWithinTheBucketOf(single(r),
                queueWaitsSeconds.stream().mapToDouble(d -> d).max().orElseThrow(), QUEUE_WAIT_BUCKETS));
        c.put("Admitted after waiting, and turned away, per second / A", r -> {
            assertThat(queue.path("admittedFromQueue").asInt()).isEqualTo(2);
            assertCount(single(r), queueWaitsSeconds.size());
        });
        c.put("Admitted after waiting, and turned away, per second / B", r -> {
            assertThat(queueFullStatus).as("the fifth session's status with the queue full").isIn(429, 529);
            perLabel(r, "reason", 3, reason -> reason.equals("queue_full") ? 1 : 0);
        });
        c.put("KV budget used by resident sessions, by replica / A", r -> {
            double expected = replica.path("workingSetTokens").asDouble() / replica.path("kvBudgetTokens").asDouble();
            assertThat(expected).as("the admitted sessions fill most of the budget").isBetween(0.3, 1.0);
            assertThat(single(r)).isCloseTo(expected, within(1e-9));
        });
        c.put("Resident sessions by replica / A", r -> {
            assertThat(replica.path("residentSessions").asInt()).isEqualTo(2);
            assertThat(single(r)).isEqualTo(2);
        });
        JsonNode tier = replica.path("hostTier");
        c.put("Host KV tier hit rate by replica (engine) / A", r -> {
            assertThat(r).extracting(s -> s.labels().get("pod")).containsExactly("small-sim-0");
            EngineSnapshot e = smallSims.engines(0).get(0);
            assertThat(e.externalPrefixQueries()).as("tokens looked up in the host tier").isPositive();
            assertThat(single(r)).isCloseTo((double) e.externalPrefixHits() / e.externalPrefixQueries(), within(1e-6));
        });
        c.put("Host KV tier size by replica (router) / A", r -> {
            // 0.4 GiB of 147,456-byte tokens, whole or not: the router divides the GiB by the bytes per token.
            assertThat(tier.path("capacityTokens").asLong()).as("%s", tier).isBetween(2_900L, 2_913L);
            assertThat(single(r)).isEqualTo(tier.path("capacityTokens").asDouble());
        });
        c.put("Host KV tier load bandwidth by replica (router) / A", r -> {
            assertThat(tier.path("loadBytesPerSecond").asDouble()).as("%s", tier).isCloseTo(25e9, within(25e9 * 0.01));
            assertThat(single(r)).isCloseTo(tier.path("loadBytesPerSecond").asDouble(), within(1.0));
        });
        return c;
    }

    private static final double[] QUEUE_WAIT_BUCKETS = {0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 180, 300, 600};

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
        return v[Math.max(0, (int) Math.ceil(0.5 * v.length) - 1)];
    }

    private static final double[] OVERHEAD_BUCKETS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};

    /** The TTFB bucket bounds as the router exposes them (le labels of one replica). */
    private static double[] ttfbBuckets() {
        return exposition.keySet().stream().filter(k -> k.startsWith("lmw_ttfb_seconds_bucket{") && k.contains("replica=\"sim-0\""))
                .map(k -> k.replaceAll(".*le=\"([^\"]+)\".*", "$1")).filter(le -> !le.equals("+Inf"))
                .mapToDouble(Double::parseDouble).sorted().toArray();
    }

    /**
     * histogram_quantile interpolates inside the bucket holding the true quantile, so its answer lies
     * within that bucket's bounds: the old count-scale buckets put a 2 ms p95 at 0.95 s.
     */
    private static void assertWithinTheBucketOf(double estimate, double truth, double[] bounds) {
        double lower = 0;
        double upper = Double.POSITIVE_INFINITY;
        for (double b : bounds) {
            if (b >= truth) {
                upper = b;
                break;
            }
            lower = b;
        }
        assertThat(estimate).as("estimate of a true %s s", truth).isBetween(lower - 1e-9, upper + 1e-9);
    }

    /** Nearest-rank quantile of a field over the session log's steps. */
    private static double quantile(String field, double q) {
        double[] v = steps.stream().mapToDouble(s -> s.path(field).asDouble()).filter(x -> x >= 0).sorted().toArray();
        assertThat(v).isNotEmpty();
        return v[Math.max(0, (int) Math.ceil(q * v.length) - 1)];
    }

    private static String segment(JsonNode step) {
        String s = step.path("prefixBreak").path("segment").asText();
        return s.startsWith("message") ? "message" : s;
    }

    private static int stepsWhere(java.util.function.Predicate<JsonNode> p) {
        return (int) steps.stream().filter(p).count();
    }

    private static double single(List<Sample> r) {
        assertThat(r).hasSize(1);
        return r.get(0).value();
    }

    /** A rate over the window, times the window: the number of events in the run. */
    private static void assertCount(double rate, double expected) {
        assertThat(rate * WINDOW_SECONDS).isCloseTo(expected, within(1e-6 * Math.max(1, expected)));
    }

    private static void perLabel(List<Sample> r, String label, int series, java.util.function.ToDoubleFunction<String> expected) {
        perLabel(r, label, series, expected, WINDOW_SECONDS);
    }

    /** One series per value of the label, each equal to its expectation (a rate times the window, or a gauge: factor 1). */
    private static void perLabel(List<Sample> r, String label, int series, java.util.function.ToDoubleFunction<String> expected, double factor) {
        assertThat(r).as("series by %s", label).hasSize(series);
        for (Sample s : r) {
            String v = s.labels().get(label);
            assertThat(v).as("label %s of %s", label, s).isNotNull();
            double e = expected.applyAsDouble(v);
            assertThat(s.value() * factor).as("%s=%s", label, v).isCloseTo(e, within(1e-6 * Math.max(1, e)));
        }
    }

    private static double sumOverReplicas(String field) {
        double total = 0;
        for (JsonNode r : replicasView.path("replicas")) {
            total += r.path(field).asDouble();
        }
        return total;
    }

    private static double replicaField(String replica, String field) {
        for (JsonNode r : replicasView.path("replicas")) {
            if (r.path("id").asText().equals(replica)) {
                return r.path(field).asDouble();
            }
        }
        throw new AssertionError("no replica " + replica + " in /api/replicas");
    }

    /** Sum of the exposition's samples of a metric whose labels contain every given fragment ({@code kind="cached"}). */
    private static double sum(String metric, String... labelFragments) {
        return exposition.entrySet().stream().filter(e -> e.getKey().startsWith(metric + "{")
                        && java.util.Arrays.stream(labelFragments).allMatch(e.getKey()::contains))
                .mapToDouble(Map.Entry::getValue).sum();
    }

    /** The dashboard's variables as Grafana would expand them: a namespace (or "All", {@code .*}), a router pod (or "All"). */
    static String substitute(String expr, String namespace, String router) {
        return expr.replace("$__rate_interval", WINDOW).replace("$namespace", namespace).replace("$model_deployment", ".*")
                .replace("$router", router);
    }

    private static Map<String, String> labels(String pod) {
        return Map.of("namespace", NAMESPACE, "model_deployment", MODEL_DEPLOYMENT, "pod", pod);
    }

    private static Map<String, String> saturatedLabels(String pod) {
        return Map.of("namespace", SATURATED_NAMESPACE, "model_deployment", SATURATED_DEPLOYMENT, "pod", pod);
    }

    private static String hostPort(String url) {
        URI u = URI.create(url);
        return u.getHost() + ":" + u.getPort();
    }

    /** Sample lines of a text exposition: "name{labels}" → value. */
    private static Map<String, Double> parse(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int space = line.lastIndexOf(' ');
                out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return out;
    }
}
