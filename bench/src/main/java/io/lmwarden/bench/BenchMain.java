package io.lmwarden.bench;

import io.lmwarden.common.Durations;
import io.lmwarden.common.build.BuildVersion;
import io.lmwarden.bench.client.ApiFlavour;
import io.lmwarden.bench.report.BenchResults;
import io.lmwarden.bench.report.ReportFiles;
import io.lmwarden.bench.workload.ScheduledFault;
import io.lmwarden.bench.workload.Workload;
import io.lmwarden.bench.workload.WorkloadFile;
import io.lmwarden.bench.workload.WorkloadSpec;
import io.lmwarden.sim.SimProfile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code java -jar lmw-bench.jar}: agent-style sessions against a pool, one table per routing policy. */
@Command(name = "lmw-bench", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = BenchMain.Version.class,
        subcommands = io.lmwarden.bench.probe.ProbeCommand.class,
        description = {
            "Runs closed-loop, Claude-Code-style sessions against a pool of vLLM replicas behind the LM Warden router,",
            "one variant per routing policy, and reports the published columns per stage.",
            "All durations are workload time; with --time-scale K a simulated stage takes 1/K of it on the wall clock."})
public final class BenchMain implements Callable<Integer> {

    /** The jar's own version, for --version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lmw-bench " + BuildVersion.of(BenchMain.class)};
        }
    }

    @Option(names = "--simulate", paramLabel = "N",
            description = "Start N simulated replicas and a router in-process, fresh for every variant.")
    int simulate;

    @Option(names = "--target", paramLabel = "URL",
            description = "A running LM Warden router, or the routers of one cluster separated by commas (steps go to them in turn);"
                    + " variants switch their policy with PUT /api/policy.")
    String target;

    @Option(names = "--profile", defaultValue = SimProfile.A4000_QWEN3_4B,
            description = "Simulator profile (with --simulate): ${DEFAULT-VALUE}; known: a4000-qwen3-4b, tiny.")
    String profile;

    @Option(names = "--sim-set", paramLabel = "NAME=VALUE,...",
            description = "Change simulator profile constants for this run (calibration trials), e.g. prefillMsPerToken=0.3,kvBlocks=2000.")
    String simSet;

    // 10: the time-scale check in bench/README.md found it as faithful as 5 on a busy 2-core machine; 20 was not.
    @Option(names = "--time-scale", paramLabel = "K", defaultValue = "10",
            description = "Simulated time runs K times faster than the wall clock (with --simulate; default ${DEFAULT-VALUE}). "
                    + "Use 1 against a real pool.")
    double timeScale;

    @Option(names = "--policies", split = ",", defaultValue = "least-loaded,affinity",
            description = "Router policies to compare, in order (default ${DEFAULT-VALUE}): a policy name (admission off), "
                    + "POLICY+admission, or default (the router's out-of-the-box configuration).")
    List<String> policies;

    @Option(names = "--engines", defaultValue = "1", paramLabel = "N",
            description = "With --simulate: engines behind each simulated replica's one port, like vllm serve"
                    + " --data-parallel-size N; the router sees each engine rank as a replica (default ${DEFAULT-VALUE}).")
    int engines;

    @Option(names = "--dp-balancer", defaultValue = "current", paramLabel = "ERA",
            description = "With --engines > 1: the servers' internal balancer, legacy, blind or current (default"
                    + " ${DEFAULT-VALUE}); a policy written policy@era (passthrough@legacy) overrides it for that variant.")
    String dpBalancer;

    @Option(names = "--repeat", defaultValue = "1", paramLabel = "R",
            description = "Repeat every variant R times, alternating their order; tables show medians.")
    int repeat;

    @Option(names = "--sessions", split = ",", defaultValue = "4,8,16,24,32",
            description = "Concurrent sessions per stage (default ${DEFAULT-VALUE}).")
    List<Integer> sessions;

    @Option(names = "--stage", defaultValue = "3m", description = "Length of each stage (default ${DEFAULT-VALUE}).")
    String stage;

    @Option(names = "--settle", defaultValue = "0",
            description = "Unmeasured time at each stage's concurrency before its measurement starts, e.g. 1m (default ${DEFAULT-VALUE}): "
                    + "the burst of new sessions a stage starts with passes first.")
    String settle;

    @Option(names = "--system-tokens", defaultValue = "3500", description = "Shared system prompt size (default ${DEFAULT-VALUE}).")
    int systemTokens;

    @Option(names = "--first-tokens", defaultValue = "7300", description = "Unique first message size (default ${DEFAULT-VALUE}).")
    int firstTokens;

    @Option(names = "--steps", defaultValue = "5", description = "Follow-up steps after the first (default ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--step-tokens", defaultValue = "400", description = "New tokens per follow-up step (default ${DEFAULT-VALUE}).")
    int stepTokens;

    @Option(names = "--max-tokens", defaultValue = "256", description = "max_tokens of every request (default ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--think-time", defaultValue = "2s",
            description = "Mean pause between a reply and the next step (default ${DEFAULT-VALUE}; 0 = none).")
    String thinkTime;

    @Option(names = "--think-jitter", defaultValue = "0.75",
            description = "Pause is uniform in mean × [1-j, 1+j] (default ${DEFAULT-VALUE}).")
    double thinkJitter;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of prompts and pauses (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--api", defaultValue = "anthropic",
            description = "anthropic (/v1/messages with X-Claude-Code-Session-Id), openai (/v1/chat/completions with X-Session-Id) "
                    + "or responses (/v1/responses with session-id, as Codex).")
    String api;

    @Option(names = "--workload", paramLabel = "FILE",
            description = "YAML workload: session classes (shares, prompts, steps, API, session key), per-replica pool overrides, "
                    + "scheduled faults (bench/README.md). Replaces the shape flags above.")
    Path workloadFile;

    @Option(names = "--sim-replica-set", paramLabel = "I:NAME=VALUE,...",
            description = "With --simulate: profile constants for replica I only (a slower card), e.g. 1:prefillMsPerToken=0.6,stepBaseMs=30. Repeatable.")
    List<String> simReplicaSet = new java.util.ArrayList<>();

    @Option(names = "--fault", paramLabel = "TEXT",
            description = "A fault at a given time of each variant, e.g. 'kill replica 1 at 5m', 'stall 2s x 20 replica 0 at 1m', "
                    + "'503 x 20 replica 2 at 30s'. Repeatable.")
    List<String> faults = new java.util.ArrayList<>();

    @Option(names = "--model", description = "Model to request (default: the first of the target's /v1/models).")
    String model;

    @Option(names = "--spill-threshold", description = "Router spill threshold for affinity: auto or N (default: the router's).")
    String spillThreshold;

    @Option(names = "--scrape-interval", defaultValue = "100ms",
            description = "With --simulate: how often the router reads engine load, workload time (default ${DEFAULT-VALUE}, "
                    + "the refresh period of vLLM's own data-parallel balancer).")
    String scrapeInterval;

    @Option(names = "--routers", paramLabel = "K",
            description = "With --simulate: K routers per variant, clustered over loopback; each step of a session goes to the next"
                    + " router in turn (default ${DEFAULT-VALUE}). A variant written POLICY*K overrides it, e.g. --policies 'default,default*3'.")
    int routers = 1;

    @Option(names = "--router-set", paramLabel = "KEY=VALUE,...",
            description = "With --simulate: router settings (YAML keys, e.g. residencyIdle=5s,kvBudget=0.9) for every variant's router.")
    String routerSet;

    @Option(names = "--admin-token", defaultValue = "${env:LMW_ADMIN_TOKEN}",
            description = "Bearer token for the router's admin API (--target); default $LMW_ADMIN_TOKEN.")
    String adminToken;

    @Option(names = "--sample-interval", defaultValue = "1s",
            description = "How often replicas busy is sampled (default ${DEFAULT-VALUE}).")
    String sampleInterval;

    @Option(names = "--warmup", paramLabel = "WALL",
            description = "Unmeasured load on a throwaway pool before measuring, wall-clock time, so the JIT is warm "
                    + "(default 5s with --simulate, 0 with --target).")
    String warmUp;

    @Option(names = "--shared-first-message",
            description = "Every session starts with the same first message, like agents started from one template.")
    boolean sharedFirstMessage;

    @Option(names = "--keyless", description = "Sessions send no session key header: the router must tell them apart by itself.")
    boolean keyless;

    @Option(names = "--sim-processes",
            description = "With --simulate: run every simulated replica as a JVM of its own (lmw-sim), so a scheduled kill "
                    + "is a real SIGKILL of its process; engine counters then come from each replica's /metrics.")
    boolean simProcesses;

    @Option(names = "--replica-admin", paramLabel = "URL,...",
            description = "With --target: base URLs of the replicas' fault APIs (simulators' /sim/faults), replica 0 first; "
                    + "scheduled faults go there (a kill as the simulator's crash fault). Default: the replica URLs of the "
                    + "router's /api/replicas.")
    String replicaAdmin;

    @Option(names = "--out", paramLabel = "DIR", description = "Write report.md, results.csv, results.json and PNG charts here.")
    Path out;

    private String[] args = new String[0];

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.config.file") == null) {
            // The in-process simulator and router log every start and stop at INFO; the progress lines are what
            // a bench user reads, so only their warnings get through.
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        }
        System.exit(run(args, System.err));
    }

    /** Runs the CLI; returns the exit code (0 ok, 1 failed run, 2 bad arguments). */
    public static int run(String[] args, PrintStream progress) {
        BenchMain main = new BenchMain();
        main.args = args.clone();
        main.progress = progress;
        CommandLine cli = new CommandLine(main);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof IllegalArgumentException) {
                cmd.getErr().println("lmw-bench: " + e.getMessage());
                return 2;
            }
            cmd.getErr().println("lmw-bench: run failed: " + e);
            e.printStackTrace(cmd.getErr());
            return 1;
        });
        return cli.execute(args);
    }

    private PrintStream progress = System.err;

    /** Where progress lines go (the probe subcommand writes there too). */
    public PrintStream progress() {
        return progress;
    }

    @Override
    public Integer call() throws Exception {
        BenchSettings settings = settings();
        BenchResults results = new BenchRunner(settings, progress).run();
        if (settings.out() != null) {
            for (Path written : ReportFiles.write(results, settings.out())) {
                progress.println("wrote " + written);
            }
        }
        return 0;
    }

    BenchSettings settings() {
        if (simulate > 0) {
            // fails early, with the known names, on a typo
            io.lmwarden.sim.ProfileOverrides.apply(SimProfile.named(profile), simSet);
            io.lmwarden.sim.dp.BalancerEra.named(dpBalancer);
            policies.forEach(p -> io.lmwarden.bench.pool.SimulatedVariant.parse(p, io.lmwarden.sim.dp.BalancerEra.CURRENT, routers));
        }
        if (target != null && simulate == 0 && timeScale != 1 && !argsContain("--time-scale")) {
            timeScale = 1; // a real pool runs on the wall clock
        }
        WorkloadSpec workload = new WorkloadSpec(systemTokens, firstTokens, steps, stepTokens, maxTokens,
                Durations.parse(thinkTime), thinkJitter, seed);
        ApiFlavour flavour = ApiFlavour.parse(api);
        Workload plan = workloadFile != null ? WorkloadFile.read(workloadFile) : Workload.single(workload, flavour).withIdentity(sharedFirstMessage, keyless);
        plan = plan.withReplicaOverrides(replicaOverrides()).withFaults(faults.stream().map(ScheduledFault::parse).toList());
        if (!plan.replicaOverrides().isEmpty() && simulate == 0) {
            throw new IllegalArgumentException("per-replica overrides need --simulate (a running pool is what it is)");
        }
        if (simulate > 0) {
            plan.replicaOverrides().values().forEach(o -> io.lmwarden.sim.ProfileOverrides.apply(SimProfile.named(profile), o));
        }
        Duration stageLength = Durations.parse(stage);
        return new BenchSettings(simulate, target, profile, blankToNull(simSet), timeScale, policies, repeat, sessions, stageLength,
                Durations.parse(settle), workloadFile != null ? plan.classes().get(0).shape() : workload,
                workloadFile != null ? plan.classes().get(0).api() : flavour, model, spillThreshold, blankToNull(adminToken),
                Durations.parse(sampleInterval),
                warmUp != null ? Durations.parse(warmUp) : Duration.ofSeconds(simulate > 0 ? 5 : 0),
                Durations.parse(scrapeInterval), routerSettings(routerSet), out,
                "java -jar bench/target/lmw-bench.jar " + String.join(" ", args), plan, workloadFile, engines, dpBalancer,
                routers, simProcesses, replicaAdmin == null ? List.of() : List.of(replicaAdmin.split(",")).stream().map(String::trim)
                        .filter(u -> !u.isEmpty()).toList());
    }

    private java.util.Map<Integer, String> replicaOverrides() {
        java.util.Map<Integer, String> m = new java.util.TreeMap<>();
        for (String entry : simReplicaSet) {
            int colon = entry.indexOf(':');
            try {
                m.put(Integer.parseInt(entry.substring(0, Math.max(0, colon)).trim()), entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--sim-replica-set wants I:NAME=VALUE,..., got '" + entry + "'");
            }
        }
        return m;
    }

    /** {@code key=value,...} into a map, with the router's own check of the keys and values. */
    static java.util.Map<String, String> routerSettings(String text) {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return m;
        }
        for (String pair : text.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--router-set takes KEY=VALUE pairs separated by commas, got '" + pair + "'");
            }
            m.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        java.util.Set<String> known = io.lmwarden.router.config.SettingsTable.ALL.stream()
                .map(io.lmwarden.router.config.Setting::key).collect(java.util.stream.Collectors.toSet());
        for (String k : m.keySet()) {
            if (!known.contains(k)) {
                throw new IllegalArgumentException("--router-set: unknown router setting '" + k + "'");
            }
        }
        io.lmwarden.router.config.ConfigResolver.resolve(java.util.Map.of(), java.util.Map.of(), m); // fails early on a bad value
        return m;
    }

    private boolean argsContain(String option) {
        for (String a : args) {
            if (a.equals(option) || a.startsWith(option + "=")) {
                return true;
            }
        }
        return false;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
