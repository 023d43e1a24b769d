package io.lmwarden.bench;

import io.lmwarden.bench.client.ApiFlavour;
import io.lmwarden.bench.workload.Workload;
import io.lmwarden.bench.workload.WorkloadSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One benchmark invocation, fully resolved.
 *
 * @param simulate        simulated replicas to start per variant (0 with {@code target})
 * @param target          URL of a running router, or null with {@code simulate}
 * @param profileOverrides {@code name=value,...} changes to the simulator profile's constants, or null
 * @param stage           length of every stage, workload time
 * @param settle          unmeasured time at each stage's concurrency before its measurement starts, workload time
 * @param sampleInterval  how often replicas busy is sampled, workload time
 * @param scrapeInterval  how often the in-process router scrapes engine load (--simulate), workload time
 * @param warmUp          unmeasured load before the first variant, wall-clock time (JIT warm-up)
 * @param model           model name to send, or null to ask the target's /v1/models
 * @param routerSettings  --router-set: router YAML keys and values for the in-process router of every variant
 * @param out             output directory, or null for stderr only
 * @param commandLine     the arguments as given, for the report
 * @param plan            the session classes, per-replica pool overrides and scheduled faults actually run: from
 *                        {@code --workload FILE}, else one class from {@code workload} and {@code api}
 * @param workloadFile    the workload file, or null for the flag shorthand
 * @param engines         engines behind each simulated replica's port (> 1: a data-parallel server)
 * @param dpBalancer      the internal balancer era of such servers, unless a policy says {@code policy@era}
 * @param routers         {@code --simulate}: in-process routers per variant (more than one: clustered over loopback),
 *                        unless a policy says {@code policy*K}; agents' steps go to the routers in turn
 * @param simProcesses    with {@code simulate}: every simulated replica in a JVM of its own (kills are SIGKILL)
 * @param replicaAdmin    with {@code target}: base URLs of the replicas' fault APIs, replica i first-to-last; empty =
 *                        the replica URLs of the router's {@code /api/replicas}
 */
public record BenchSettings(
        int simulate,
        String target,
        String profile,
        String profileOverrides,
        double timeScale,
        List<String> policies,
        int repeat,
        List<Integer> sessions,
        Duration stage,
        Duration settle,
        WorkloadSpec workload,
        ApiFlavour api,
        String model,
        String spillThreshold,
        String adminToken,
        Duration sampleInterval,
        Duration warmUp,
        Duration scrapeInterval,
        java.util.Map<String, String> routerSettings,
        Path out,
        String commandLine,
        Workload plan,
        Path workloadFile,
        int engines,
        String dpBalancer,
        int routers,
        boolean simProcesses,
        List<String> replicaAdmin) {

    public BenchSettings {
        policies = List.copyOf(policies);
        sessions = List.copyOf(sessions);
        routerSettings = java.util.Map.copyOf(routerSettings);
        replicaAdmin = List.copyOf(replicaAdmin);
        if (simProcesses && simulate == 0) {
            throw new IllegalArgumentException("--sim-processes starts simulated replicas: it needs --simulate N");
        }
        if (!replicaAdmin.isEmpty() && target == null) {
            throw new IllegalArgumentException("--replica-admin names a running pool's fault APIs: it needs --target URL");
        }
        if ((simulate > 0) == (target != null)) {
            throw new IllegalArgumentException("choose exactly one target: --simulate N or --target URL");
        }
        if (policies.isEmpty() || sessions.isEmpty()) {
            throw new IllegalArgumentException("--policies and --sessions need at least one value");
        }
        if (sessions.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("--sessions values must be >= 1, got " + sessions);
        }
        if (engines < 1) {
            throw new IllegalArgumentException("--engines must be >= 1, got " + engines);
        }
        if (target != null && (engines != 1 || policies.stream().anyMatch(p -> p.contains("@")))) {
            throw new IllegalArgumentException("--engines and policy@balancer apply to --simulate only; a running pool"
                    + " has its own servers");
        }
        if (routers < 1) {
            throw new IllegalArgumentException("--routers must be >= 1, got " + routers);
        }
        if (target != null && (routers != 1 || policies.stream().anyMatch(p -> p.contains("*")))) {
            throw new IllegalArgumentException("--routers and policy*K start routers with --simulate; with --target list the"
                    + " running routers: --target URL1,URL2,URL3");
        }
        if (target != null && splitTargets(target).stream().anyMatch(u -> !u.startsWith("http://") && !u.startsWith("https://"))) {
            throw new IllegalArgumentException("--target takes router URLs separated by commas (http://host:port,...), got '"
                    + target + "'");
        }
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
        }
        if (settle.isNegative()) {
            throw new IllegalArgumentException("--settle must be >= 0");
        }
        if (stage.isNegative() || stage.isZero()) {
            throw new IllegalArgumentException("--stage must be > 0");
        }
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("--time-scale must be > 0, got " + timeScale);
        }
        if (scrapeInterval.isNegative() || scrapeInterval.isZero()) {
            throw new IllegalArgumentException("--scrape-interval must be > 0");
        }
        if (warmUp.isNegative()) {
            throw new IllegalArgumentException("--warmup must be >= 0");
        }
        if (sampleInterval.isNegative() || sampleInterval.isZero()) {
            throw new IllegalArgumentException("--sample-interval must be > 0");
        }
    }

    /** One invocation without --routers: one router per variant. */
    public BenchSettings(int simulate, String target, String profile, String profileOverrides, double timeScale,
                         List<String> policies, int repeat, List<Integer> sessions, Duration stage, Duration settle,
                         WorkloadSpec workload, ApiFlavour api, String model, String spillThreshold, String adminToken,
                         Duration sampleInterval, Duration warmUp, Duration scrapeInterval,
                         java.util.Map<String, String> routerSettings, Path out, String commandLine, Workload plan,
                         Path workloadFile, int engines, String dpBalancer) {
        this(simulate, target, profile, profileOverrides, timeScale, policies, repeat, sessions, stage, settle, workload, api,
                model, spillThreshold, adminToken, sampleInterval, warmUp, scrapeInterval, routerSettings, out, commandLine, plan,
                workloadFile, engines, dpBalancer, 1, false, List.of());
    }

    /** One invocation without --routers, its simulated replicas in-process or not. */
    public BenchSettings(int simulate, String target, String profile, String profileOverrides, double timeScale,
                         List<String> policies, int repeat, List<Integer> sessions, Duration stage, Duration settle,
                         WorkloadSpec workload, ApiFlavour api, String model, String spillThreshold, String adminToken,
                         Duration sampleInterval, Duration warmUp, Duration scrapeInterval,
                         java.util.Map<String, String> routerSettings, Path out, String commandLine, Workload plan,
                         Path workloadFile, int engines, String dpBalancer, boolean simProcesses, List<String> replicaAdmin) {
        this(simulate, target, profile, profileOverrides, timeScale, policies, repeat, sessions, stage, settle, workload, api,
                model, spillThreshold, adminToken, sampleInterval, warmUp, scrapeInterval, routerSettings, out, commandLine, plan,
                workloadFile, engines, dpBalancer, 1, simProcesses, replicaAdmin);
    }

    /** The --target routers (one, or the members of a cluster), empty with --simulate. */
    public List<String> targets() {
        return target == null ? List.of() : splitTargets(target);
    }

    private static List<String> splitTargets(String text) {
        return java.util.Arrays.stream(text.split(",")).map(String::trim).filter(u -> !u.isEmpty()).toList();
    }

    /** The order of variants in repeat {@code r} (0-based): alternated, so that neither always runs first. */
    public List<String> policyOrder(int r) {
        if (r % 2 == 0) {
            return policies;
        }
        List<String> reversed = new java.util.ArrayList<>(policies);
        java.util.Collections.reverse(reversed);
        return reversed;
    }
}
