package io.lmwarden.bench.micro;

import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.diagnostics.LiveWorkingSets;
import io.lmwarden.router.diagnostics.PrefixBreakDetector;
import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.placement.pins.AffinityTable;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.policy.PolicyFactory;
import io.lmwarden.router.placement.policy.PolicyHolder;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.placement.reservation.Reservations;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.prefix.TtftEstimator;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.placement.admission.AdmissionRules;
import io.lmwarden.router.pool.DiscoveredReplica;
import io.lmwarden.router.pool.EndpointMetrics;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.session.ConversationLineages;
import io.lmwarden.router.session.MalformedRequestException;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.RequestFactsReader;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.session.SessionKeyResolver;
import io.lmwarden.router.session.Tenant;
import io.lmwarden.router.stats.RequestAccounting;
import io.lmwarden.router.stats.RequestLog;
import io.lmwarden.router.stats.RouterMetrics;
import io.lmwarden.router.stats.SessionLog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The router's request path without the network, per request: reading the facts from a realistic
 * multi-KB body (chat completions or Anthropic messages), hashing the session key as the request log
 * does, and placement with 1M sessions already pinned on 64 replicas, for a pinned session
 * ({@code STICKY}) and a new one, with each placement policy; {@code request*} also opens and closes the
 * reservation with every listener the router hangs off it (prefix learning, accounting and meters,
 * admission, the request log line).
 * <pre>
 * java -cp bench/target/lmw-bench.jar org.openjdk.jmh.Main RequestPath -prof gc            # everything (~10 min)
 * java -cp bench/target/lmw-bench.jar org.openjdk.jmh.Main 'RequestPath.request' -p api=chat -prof gc
 * </pre>
 * Time is virtual (a clock that advances a fixed step per request), so that residency expiry and the
 * session table's idle timeout see a steady stream of steps however fast the machine runs them:
 * sticky steps cycle through {@link #ACTIVE_SESSIONS} of the pinned sessions 1 ms apart (each steps
 * again within the residency idle time, so it stays resident, as an agent between tool runs does);
 * new sessions arrive 10 ms apart (about 500 resident at once, within the 64 replicas' KV budgets).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class RequestPath {

    static final int PINNED_SESSIONS = 1_000_000;
    static final int REPLICAS = 64;
    /** Agents stepping at once; sticky steps cycle through them. */
    static final int ACTIVE_SESSIONS = 1_000;
    static final String MODEL = "Qwen/Qwen3-4B-Instruct-2507";
    static final long STICKY_STEP_NANOS = 1_000_000;
    static final long NEW_SESSION_STEP_NANOS = 10_000_000;
    static final int BODIES = 16;

    /** The request bodies and the reader: what facts extraction needs. */
    @State(Scope.Benchmark)
    public static class Bodies {
        @Param({"chat", "anthropic"})
        public String api;

        ApiDialect dialect;
        /** Several conversations' bodies, so that prefix indexes and lineages see different prompts. */
        byte[][] bodies;
        int nextBody;
        String sessionHeader;
        RequestFactsReader reader;
        String[] keys;
        int next;
        /** One read of each body, for the placement-only benchmarks. */
        RequestFacts[] shapes;
        int nextShape;

        @Setup(Level.Trial)
        public void setUp() {
            dialect = api.equals("chat") ? ApiDialect.OPENAI_CHAT : ApiDialect.ANTHROPIC_MESSAGES;
            bodies = new byte[BODIES][];
            for (int i = 0; i < BODIES; i++) {
                bodies[i] = (api.equals("chat") ? RequestBodies.chat(42 + i) : RequestBodies.anthropic(42 + i)).getBytes(StandardCharsets.UTF_8);
            }
            sessionHeader = api.equals("chat") ? "x-session-id" : "x-claude-code-session-id";
            reader = new RequestFactsReader(new SessionKeyResolver(new ConversationLineages(65_536)));
            keys = RequestBodies.uuids(ACTIVE_SESSIONS, 7);
            shapes = new RequestFacts[BODIES];
            try {
                for (int i = 0; i < BODIES; i++) {
                    shapes[i] = read(keys[i]);
                }
            } catch (MalformedRequestException e) {
                throw new IllegalStateException(e);
            }
        }

        RequestFacts read(String key) throws MalformedRequestException {
            Function<String, String> headers = name -> name.equals(sessionHeader) ? key : null;
            byte[] body = bodies[nextBody];
            nextBody = nextBody + 1 == BODIES ? 0 : nextBody + 1;
            return reader.read(dialect, body, headers, Tenant.NONE);
        }

        /** Facts as the reader makes them, with another session key: placement alone, without reading a body. */
        RequestFacts withKey(String key) {
            RequestFacts f = shapes[nextShape];
            nextShape = nextShape + 1 == shapes.length ? 0 : nextShape + 1;
            return new RequestFacts(f.dialect(), f.model(), f.stream(), new SessionKey(key, f.sessionKey().source()), f.shape(),
                    f.maxTokens(), f.pinnedReplica(), f.dataParallelRank());
        }

        String nextKey() {
            String k = keys[next];
            next = next + 1 == keys.length ? 0 : next + 1;
            return k;
        }
    }

    /** A router's placement and feedback, wired as RouterParts wires them, with 1M sessions pinned on 64 replicas. */
    @State(Scope.Benchmark)
    public static class Router {
        @Param({"affinity+admission", "affinity", "cost", "least-loaded"})
        public String policy;

        ReplicaPool pool;
        AffinityTable pins;
        RouterMetrics metrics;
        Reservations reservations;
        AdmissionController admission;
        String[] pinned;
        int[] active;
        int nextActive;
        long newSessions;
        long clock;
        long queued;
        final AdmissionController.Waiter waiter = new AdmissionController.Waiter() {
            @Override
            public void admitted(AdmissionController.Admission a) {
            }

            @Override
            public void rejected(AdmissionController.Rejection r) {
            }
        };
        /** The request log's lines go here instead of stderr, so that building them is measured but not the console. */
        String lastLogLine;

        @Setup(Level.Trial)
        public void setUp() {
            boolean admit = policy.endsWith("+admission");
            String policyName = admit ? policy.substring(0, policy.indexOf('+')) : policy;
            pool = new ReplicaPool(Duration.ofDays(3650));
            List<DiscoveredReplica> replicas = new ArrayList<>();
            for (int i = 0; i < REPLICAS; i++) {
                replicas.add(new DiscoveredReplica(replicaId(i), "http://10.0." + (i / 250) + "." + (i % 250 + 1) + ":8000", true, 0));
            }
            pins = new AffinityTable(PINNED_SESSIONS, Duration.ofDays(3650));
            metrics = new RouterMetrics(pool, pins, "bench");
            pool.onAdded(metrics::replicaDiscovered);
            pool.apply(replicas);
            Random rnd = new Random(11);
            for (int i = 0; i < REPLICAS; i++) {
                // A moderately busy engine with the reference replica's KV cache, serving the model.
                pool.recordScrape(replicaId(i), new EndpointMetrics(ScrapedMetrics.builder().scrapedAtNanos(0)
                        .running(2 + rnd.nextInt(4)).waiting(rnd.nextInt(2)).kvCacheUsage(0.3 + rnd.nextDouble() * 0.4)
                        .kvBlocks(2400, 16).models(MODEL).build(), java.util.Map.of()));
            }
            pinned = RequestBodies.uuids(PINNED_SESSIONS, 3);
            for (int i = 0; i < PINNED_SESSIONS; i++) {
                pins.pin(MODEL, pinned[i], replicaId(i % REPLICAS), 0);
            }
            active = new int[ACTIVE_SESSIONS];
            for (int i = 0; i < ACTIVE_SESSIONS; i++) {
                active[i] = rnd.nextInt(PINNED_SESSIONS);
            }
            PrefixIndexes prefixIndexes = new PrefixIndexes(38_400);
            PrefillRates prefillRates = new PrefillRates(0.3);
            TtftEstimator estimator = new TtftEstimator(prefixIndexes, prefillRates, 32, 256 * 25);
            SessionHomes homes = new SessionHomes(pins);
            PolicyHolder policies = new PolicyHolder(new PolicyFactory(homes, 32, estimator, 1), policyName, SpillThreshold.AUTO);
            Placer placer = new Placer(policies, prefixIndexes);
            reservations = new Reservations(pool, prefixIndexes, prefillRates);
            reservations.listen(new RequestAccounting(metrics, new SessionLog(2_000, 50), new PrefixBreakDetector(4096), prefillRates,
                    new TokenRates(), new LiveWorkingSets(Duration.ofMinutes(1), 4096)));
            // The router's defaults, as it starts with them.
            AdmissionRules settings = AdmissionRules.of(io.lmwarden.router.config.RouterConfig.defaults().admission().withEnabled(admit), 1);
            admission = new AdmissionController(settings, placer, this::snapshot, policies, homes,
                    io.lmwarden.router.placement.prefix.HeldTokens.estimatesOnly(prefixIndexes), prefillRates, 38_400,
                    metrics.admissionObserver(), () -> clock);
            metrics.gaugeAdmission(admission);
            reservations.listen(new RequestLog(false, line -> lastLogLine = line));
        }

        PoolSnapshot snapshot(long now) {
            return pool.snapshot(pins::sessionsOn, id -> 0, now);
        }

        String nextPinnedKey() {
            String k = pinned[active[nextActive]];
            nextActive = nextActive + 1 == active.length ? 0 : nextActive + 1;
            clock += STICKY_STEP_NANOS;
            return k;
        }

        String nextNewKey() {
            clock += NEW_SESSION_STEP_NANOS;
            return "new-" + (newSessions++);
        }

        /** Admission (or placement alone when it is off) as the proxy asks for it; empty when the request would queue. */
        Optional<AdmissionController.Admission> admit(RequestFacts facts, Set<String> tried) throws NoReplicaAvailableException {
            Optional<AdmissionController.Admission> a = admission.submit(facts, tried, waiter);
            if (a.isEmpty()) {
                queued++;
                admission.release(facts, waiter);
            }
            return a;
        }

        /** Placement, the reservation and its feedback, as one non-streaming request that the engine answers at once. */
        Placement serve(RequestFacts facts) throws NoReplicaAvailableException {
            metrics.sessionKeySource(facts.sessionKey().source().label());
            Set<String> tried = new LinkedHashSet<>();
            Optional<AdmissionController.Admission> a = admit(facts, tried);
            if (a.isEmpty()) {
                return null;
            }
            long now = clock;
            Reservation r = reservations.openAt(facts, a.get().placement(), tried, now).orElseThrow();
            r.sent(now + 50_000);
            r.firstByte(now + 5_000_000, 200);
            int prompt = facts.shape().estimatedTokens();
            r.finish(200, true, prompt / 2, prompt, 64);
            admission.release(facts, waiter);
            return r.placement();
        }

        @TearDown(Level.Trial)
        public void report() {
            // A benchmark whose steps queue measures the queue, not placement: say so.
            System.out.printf("%n[%s] pinned=%d admission=%s queued=%d last log line: %s%n", policy, pins.size(),
                    admission.totals(), queued, lastLogLine);
            metrics.close();
        }
    }

    static String replicaId(int i) {
        return "qwen-vllm-" + i;
    }

    /** Facts extraction: parse the body, render and hash the canonical prompt, resolve the session key. */
    @Benchmark
    public RequestFacts facts(Bodies b) throws MalformedRequestException {
        return b.read(b.nextKey());
    }

    /** The session hash the request log and the admin API show for a key (SHA-256 of a UUID). */
    @Benchmark
    public String sessionKeyHash(Bodies b) {
        return SessionKey.displayHash(b.nextKey());
    }

    /** Placement alone (admission included when on; no body read) of a step of a pinned session: STICKY. */
    @Benchmark
    public void placeSticky(Bodies b, Router r, Blackhole bh) throws Exception {
        RequestFacts facts = b.withKey(r.nextPinnedKey());
        Optional<AdmissionController.Admission> a = r.admit(facts, new LinkedHashSet<>());
        if (a.isPresent()) {
            bh.consume(a.get().placement());
            r.admission.release(facts, r.waiter);
        }
    }

    /** Placement alone of a session nobody has seen: NEW, pinned (the table's least recently used entry goes). */
    @Benchmark
    public void placeNew(Bodies b, Router r, Blackhole bh) throws Exception {
        RequestFacts facts = b.withKey(r.nextNewKey());
        Optional<AdmissionController.Admission> a = r.admit(facts, new LinkedHashSet<>());
        if (a.isPresent()) {
            bh.consume(a.get().placement());
            r.admission.release(facts, r.waiter);
        }
    }

    /** The whole in-process path of a pinned session's step: facts, placement, reservation and every listener. */
    @Benchmark
    public Placement requestSticky(Bodies b, Router r) throws Exception {
        return r.serve(b.read(r.nextPinnedKey()));
    }

    /** The whole in-process path of a new session's first step. */
    @Benchmark
    public Placement requestNew(Bodies b, Router r) throws Exception {
        return r.serve(b.read(r.nextNewKey()));
    }

    /** Request bodies the size and shape coding agents send: a ~2 KB system prompt, tools, a few turns; ~9 KB in all. */
    static final class RequestBodies {

        private RequestBodies() {
        }

        static String[] uuids(int n, long seed) {
            Random rnd = new Random(seed);
            String[] out = new String[n];
            for (int i = 0; i < n; i++) {
                out[i] = new UUID(rnd.nextLong(), rnd.nextLong()).toString();
            }
            return out;
        }

        static String words(Random rnd, int chars) {
            String[] vocab = {"the", "function", "returns", "a", "list", "of", "files", "in", "directory", "when", "called", "with",
                    "path", "argument", "error", "handling", "should", "check", "null", "value", "test", "passes", "build", "fails"};
            StringBuilder sb = new StringBuilder(chars + 16);
            while (sb.length() < chars) {
                sb.append(vocab[rnd.nextInt(vocab.length)]).append(' ');
            }
            return sb.toString().trim();
        }

        static String chat(long seed) {
            Random rnd = new Random(seed);
            return "{\"model\":\"" + MODEL + "\",\"max_tokens\":256,\"stream\":false,\"messages\":["
                    + "{\"role\":\"system\",\"content\":\"" + words(rnd, 2200) + "\"},"
                    + "{\"role\":\"user\",\"content\":\"" + words(rnd, 2400) + "\"},"
                    + "{\"role\":\"assistant\",\"content\":\"" + words(rnd, 900) + "\"},"
                    + "{\"role\":\"user\",\"content\":\"" + words(rnd, 1500) + "\"},"
                    + "{\"role\":\"assistant\",\"content\":\"" + words(rnd, 700) + "\"},"
                    + "{\"role\":\"user\",\"content\":\"" + words(rnd, 1200) + "\"}],"
                    + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"description\":\"Read a file\","
                    + "\"parameters\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}}}]}";
        }

        static String anthropic(long seed) {
            Random rnd = new Random(seed);
            return "{\"model\":\"" + MODEL + "\",\"max_tokens\":256,\"stream\":false,"
                    + "\"system\":[{\"type\":\"text\",\"text\":\"x-anthropic-billing-header: cc_version=2.1.0; cch=1a2b3\"},"
                    + "{\"type\":\"text\",\"text\":\"" + words(rnd, 2200) + "\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                    + "\"tools\":[{\"name\":\"Read\",\"description\":\"Reads a file\",\"input_schema\":{\"type\":\"object\","
                    + "\"properties\":{\"file_path\":{\"type\":\"string\"}},\"required\":[\"file_path\"]}},"
                    + "{\"name\":\"Bash\",\"description\":\"Runs a command\",\"input_schema\":{\"type\":\"object\","
                    + "\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}}],"
                    + "\"messages\":["
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + words(rnd, 2400) + "\"}]},"
                    + "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" + words(rnd, 400) + "\"},"
                    + "{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"Read\",\"input\":{\"file_path\":\"/src/Main.java\"}}]},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01\",\"content\":\""
                    + words(rnd, 2000) + "\"}]},"
                    + "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" + words(rnd, 600) + "\"}]},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + words(rnd, 900) + "\"}]}],"
                    + "\"metadata\":{\"user_id\":\"user_abc_account_def_session_0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a\"}}";
        }
    }
}
