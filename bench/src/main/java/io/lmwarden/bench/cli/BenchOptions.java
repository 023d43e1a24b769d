package io.lmwarden.bench.cli;

import io.lmwarden.bench.settings.RunPlan;
import io.lmwarden.bench.settings.PoolSettings;
import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.bench.workload.AgentApiNames;
import io.lmwarden.bench.run.StageHold;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.bench.pool.SimulatedVariant;
import io.lmwarden.bench.pool.VariantSpec;
import io.lmwarden.bench.workload.ScheduledFault;
import io.lmwarden.bench.workload.SessionStart;
import io.lmwarden.bench.workload.Workload;
import io.lmwarden.bench.workload.WorkloadFile;
import io.lmwarden.bench.workload.WorkloadSpec;
import io.lmwarden.common.Durations;
import io.lmwarden.router.config.ConfigResolver;
import io.lmwarden.router.config.Setting;
import io.lmwarden.router.config.SettingsTable;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The options of every run of lmw-bench (the bench itself and its {@code probe} and {@code replay} subcommands take
 * them as a picocli mixin), and their resolution into {@link BenchSettings}.
 */
public final class BenchOptions {

    @Option(names = "--simulate", paramLabel = "N",
            description = "Start N simulated replicas and a router in-process, fresh for every variant.")
    int simulate;

    @Option(names = "--target", paramLabel = "URL",
            description = "A running LM Warden router, or the routers of one cluster separated by commas (steps go to them in turn);"
                    + " variants switch their policy with PUT /api/policy.")
    String target;

    @Option(names = {"--profile", "--sim-profile"}, defaultValue = SimProfile.A4000_QWEN3_4B,
            description = "Simulator profile (with --simulate): ${DEFAULT-VALUE}; any profile the simulator knows.")
    String profile;

    @Option(names = "--sim-set", paramLabel = "NAME=VALUE,...",
            description = "Change simulator profile constants for this run (calibration trials), e.g. prefillMsPerToken=0.3,kvBlocks=2000.")
    String simSet;

    // 10: the time-scale check in bench/README.md found it as faithful as 5 on a busy 2-core machine; 20 was not.
    @Option(names = "--time-scale", paramLabel = "K",
            description = "Simulated time runs K times faster than the wall clock (default 10 with --simulate, 1 with --target).")
    Double timeScale;

    @Option(names = "--policies", split = ",", defaultValue = "least-loaded,affinity",
            description = "Router policies to compare, in order (default ${DEFAULT-VALUE}): a policy name (admission off), "
                    + "POLICY+admission, default (the router's out-of-the-box configuration), or ceiling (affinity on a KV "
                    + "cache that never evicts: the upper bound).")
    List<String> policies;

    @Option(names = "--ceiling",
            description = "With --simulate: add the ceiling variant (affinity, admission off, every replica's KV cache large"
                    + " enough that nothing is evicted) after the policies; tables give each policy's ratio to it.")
    boolean ceiling;

    @Option(names = "--engines", defaultValue = "1", paramLabel = "N",
            description = "With --simulate: engines behind each simulated replica's one port, like vllm serve"
                    + " --data-parallel-size N; the router sees each engine rank as a replica (default ${DEFAULT-VALUE}).")
    int engines;

    @Option(names = "--dp-balancer", defaultValue = "current", paramLabel = "ERA",
            description = "With --engines > 1: the servers' internal balancer, legacy, blind or current (default"
                    + " ${DEFAULT-VALUE}); a policy written policy@era (passthrough@legacy) overrides it for that variant.")
    String dpBalancer;

    @Option(names = "--repeat", defaultValue = "1", paramLabel = "R",
            description = "Repeat every variant R times, alternating their order; tables show medians (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--sessions", split = ",", defaultValue = "4,8,16,24,32",
            description = "Concurrent sessions per stage (default ${DEFAULT-VALUE}).")
    List<Integer> sessions;

    @Option(names = "--stage", defaultValue = "3m", description = "Length of each stage (default ${DEFAULT-VALUE}).")
    String stage;

    @Option(names = "--stage-min-steps", defaultValue = "0",
            description = "The fewest steps each stage measures: its window stays open past --stage until that many steps have ended"
                    + " in it (at most " + StageHold.GUARD_STAGES + " stage lengths; default ${DEFAULT-VALUE}: the stage is its length only).")
    int stageMinSteps;

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

    @Option(names = "--workload", paramLabel = "FILE|NAME",
            description = "YAML workload: session classes (shares, prompts, steps, pauses and sizes as distributions, compaction,"
                    + " API, session key), per-replica pool overrides, scheduled faults (bench/README.md); or a built-in one:"
                    + " claude-code-tools. Replaces the shape flags above.")
    Path workloadFile;

    @Option(names = "--start", paramLabel = "fresh|steady",
            description = "How the sessions a stage adds begin: fresh (at their first step, all at once) or steady (somewhere in"
                    + " their life, their history built, after part of a pause). Default: the workload file's 'start', else fresh.")
    String start;

    @Option(names = "--context-window", paramLabel = "TOKENS", defaultValue = "0",
            description = "The model's context window, where compacting classes compact (default: max_model_len from the target's"
                    + " /v1/models).")
    int contextWindow;

    @Option(names = "--sim-replica-set", paramLabel = "I:NAME=VALUE,...",
            description = "With --simulate: profile constants for replica I only (a slower card), e.g. 1:prefillMsPerToken=0.6,stepBaseMs=30. Repeatable.")
    List<String> simReplicaSet = new ArrayList<>();

    @Option(names = "--fault", paramLabel = "TEXT",
            description = "A fault at a given time of each variant, e.g. 'kill replica 1 at 5m', 'stall 2s x 20 replica 0 at 1m', "
                    + "'503 x 20 replica 2 at 30s', 'drain replica 1 at 1m'; Day-2 operations: 'upgrade replicas at 3m', "
                    + "'remove replica 3 at 2m', 'add replica 2 at 1m' (with --sim-processes), 'restart router 1 at 3m', "
                    + "'restart routers at 3m' (a rolling restart: each router in turn, the next once the previous is back and"
                    + " ready). Repeatable.")
    List<String> faults = new ArrayList<>();

    @Option(names = "--model", description = "Model to request (default: the first of the target's /v1/models).")
    String model;

    @Option(names = "--spill-threshold", description = "Router spill threshold for affinity: auto or N (default: the router's).")
    String spillThreshold;

    @Option(names = "--scrape-interval", defaultValue = "100ms",
            description = "With --simulate: how often the router reads engine load, workload time (default ${DEFAULT-VALUE}, "
                    + "the refresh period of vLLM's own data-parallel balancer).")
    String scrapeInterval;

    @Option(names = "--routers", paramLabel = "K", defaultValue = "1",
            description = "With --simulate: K routers per variant, clustered over loopback; each step of a session goes to the next"
                    + " router in turn (default ${DEFAULT-VALUE}). A variant written POLICY*K overrides it, e.g. --policies 'default,default*3'.")
    int routers;

    @Option(names = "--steps-per-router", paramLabel = "N", defaultValue = "1",
            description = "With several routers (--routers K, POLICY*K, or --target URL1,URL2): a session sends N consecutive steps"
                    + " to one router, then moves to the next, like a client whose connection ends every N steps (default"
                    + " ${DEFAULT-VALUE}: every step to the next router).")
    int stepsPerRouter;

    @Option(names = "--engine-scheduling", paramLabel = "fcfs|priority", defaultValue = "fcfs",
            description = "--simulate: the simulated engines' scheduling policy, as vLLM's --scheduling-policy: priority orders each"
                    + " engine's queue and preemptions by the priority the router sends (default ${DEFAULT-VALUE}).")
    String engineScheduling;

    @Option(names = "--max-loras", paramLabel = "N", defaultValue = "4",
            description = "With --simulate and a workload on LoRA adapters: every simulated engine's max_loras, the adapters one"
                    + " batch may hold (default ${DEFAULT-VALUE}).")
    int maxLoras;

    @Option(names = "--max-cpu-loras", paramLabel = "M",
            description = "With --simulate and a workload on LoRA adapters: adapters each simulated engine keeps in CPU memory,"
                    + " >= --max-loras (default: --max-loras, as vLLM's).")
    Integer maxCpuLoras;

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

    @Option(names = "--step-log",
            description = "Write every step of every variant to steps-POLICY-rREPEAT.csv in --out (replica, decision, queue wait,"
                    + " cached tokens): which steps moved and why. Runs with --fault always write it.")
    boolean stepLog;

    @Option(names = "--out", paramLabel = "DIR", description = "Write report.md, results.csv, results.json and PNG charts here.")
    Path out;

    /** The run these options describe; {@code commandLine} is what the report quotes. */
    public BenchSettings settings(String commandLine) {
        boolean simulated = simulate > 0;
        if (simulated) {
            // fails early, with the known names, on a typo
            ProfileOverrides.apply(SimProfile.named(profile), simSet);
            BalancerEra.named(dpBalancer);
            policies.forEach(p -> SimulatedVariant.parse(p, BalancerEra.CURRENT, routers));
        }
        if (ceiling && !simulated) {
            throw new IllegalArgumentException("--ceiling enlarges simulated KV caches: it needs --simulate N");
        }
        Workload plan = workload();
        for (var f : plan.faults()) {
            if (f.kind().needsProcesses() && !(simulated && simProcesses)) {
                throw new IllegalArgumentException("'" + f.describe() + "' stops and starts replica processes: it needs --simulate N"
                        + " --sim-processes");
            }
            if (f.kind() == io.lmwarden.bench.workload.ScheduledFault.Kind.RESTART_ROUTER && !simulated) {
                throw new IllegalArgumentException("'" + f.describe() + "' restarts the bench's own routers: it needs --simulate N"
                        + " (with --routers K for a cluster)");
            }
        }
        if (simulated) {
            plan.replicaOverrides().values().forEach(o -> ProfileOverrides.apply(SimProfile.named(profile), o));
        }
        PoolSettings pool = new PoolSettings(simulate, target, profile, blankToNull(simSet), engines, dpBalancer, routers,
                stepsPerRouter, simProcesses, replicaAdmin == null ? List.of()
                : Arrays.stream(replicaAdmin.split(",")).map(String::trim).filter(u -> !u.isEmpty()).toList(),
                routerSettings(routerSet), Durations.parse(scrapeInterval), spillThreshold, blankToNull(adminToken), model,
                contextWindow, io.lmwarden.sim.SimOptions.priorityScheduling("--engine-scheduling", engineScheduling), maxLoras,
                maxCpuLoras != null ? maxCpuLoras : maxLoras);
        if (plan.adapters().present() && simProcesses) {
            throw new IllegalArgumentException("a workload on LoRA adapters runs on in-process simulated replicas: --sim-processes"
                    + " is not supported with it (slot waits and adapter loads are read from the engines in-process)");
        }
        List<String> variants = new ArrayList<>(policies);
        if (ceiling && !variants.contains(VariantSpec.CEILING)) {
            variants.add(VariantSpec.CEILING);
        }
        RunPlan run = new RunPlan(variants, repeat, sessions, Durations.parse(stage), Durations.parse(settle),
                timeScale != null ? timeScale : simulated ? 10 : 1, Durations.parse(sampleInterval),
                warmUp != null ? Durations.parse(warmUp) : Duration.ofSeconds(simulated ? 5 : 0), stepLog, stageMinSteps);
        return new BenchSettings(pool, run, plan, workloadFile, null, out, commandLine);
    }

    /** The classes, pool overrides and faults: the workload file's, or one class from the shape flags. */
    private Workload workload() {
        Workload plan = workloadFile != null ? WorkloadFile.read(workloadFile)
                : Workload.single(new WorkloadSpec(systemTokens, firstTokens, steps, stepTokens, maxTokens, Durations.parse(thinkTime),
                        thinkJitter, seed), AgentApiNames.parse(api)).withIdentity(sharedFirstMessage, keyless);
        if (start != null) {
            plan = plan.withStart(SessionStart.parse(start));
        }
        return plan.withReplicaOverrides(replicaOverrides()).withFaults(faults.stream().map(ScheduledFault::parse).toList());
    }

    private Map<Integer, String> replicaOverrides() {
        Map<Integer, String> m = new TreeMap<>();
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
    static Map<String, String> routerSettings(String text) {
        Map<String, String> m = new LinkedHashMap<>();
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
        Set<String> known = SettingsTable.ALL.stream().map(Setting::key).collect(Collectors.toSet());
        for (String k : m.keySet()) {
            if (!known.contains(k)) {
                throw new IllegalArgumentException("--router-set: unknown router setting '" + k + "'");
            }
        }
        ConfigResolver.resolve(Map.of(), Map.of(), m); // fails early on a bad value
        return m;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
