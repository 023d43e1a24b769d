package io.lmwarden.bench.settings;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The pool a run measures: simulated replicas started per variant, or a running router (or the routers of one
 * cluster), and how the bench reaches and configures it.
 *
 * @param simulate         simulated replicas to start per variant (0 with {@code target})
 * @param target           {@code --target}: a router URL, or the routers of one cluster separated by commas; null with
 *                         {@code simulate}
 * @param profile          simulator profile name (with {@code simulate})
 * @param profileOverrides {@code name=value,...} changes to the profile's constants, or null
 * @param engines          engines behind each simulated replica's port (> 1: a data-parallel server)
 * @param dpBalancer       the internal balancer era of such servers, unless a policy says {@code policy@era}
 * @param routers          in-process routers per variant (more than one: clustered over loopback), unless a policy
 *                         says {@code policy*K}; agents' steps go to the routers in turn
 * @param stepsPerRouter   how many consecutive steps a session sends to one router before it moves to the next (1: every
 *                         step to the next router; N: a client whose connection ends every N steps, as a Service then
 *                         spreads the new connection)
 * @param simProcesses     every simulated replica in a JVM of its own (kills are SIGKILL)
 * @param replicaAdmin     with {@code target}: base URLs of the replicas' fault APIs, replica 0 first; empty = the
 *                         replica URLs of the router's {@code /api/replicas}
 * @param routerSettings   {@code --router-set}: router YAML keys and values for every variant's in-process router
 * @param scrapeInterval   how often the in-process router scrapes engine load, workload time
 * @param spillThreshold   affinity's spill threshold ({@code auto} or N), or null for the router's
 * @param adminToken       bearer token for a running router's admin API, or null
 * @param model            model name to send, or null to ask the target's {@code /v1/models}
 * @param contextWindow    the model's window in tokens ({@code --context-window}), or 0 to take {@code max_model_len}
 *                         from the target's {@code /v1/models}
 * @param priorityScheduling {@code --engine-scheduling priority}: the simulated engines run vLLM's
 *                         {@code --scheduling-policy priority} (in-process replicas only)
 * @param maxLoras         with a workload on LoRA adapters: each simulated engine's {@code max_loras} (adapters one batch
 *                         may hold)
 * @param maxCpuLoras      and its {@code max_cpu_loras} (adapters kept in CPU memory), >= maxLoras
 */
public record PoolSettings(
        int simulate,
        String target,
        String profile,
        String profileOverrides,
        int engines,
        String dpBalancer,
        int routers,
        int stepsPerRouter,
        boolean simProcesses,
        List<String> replicaAdmin,
        Map<String, String> routerSettings,
        Duration scrapeInterval,
        String spillThreshold,
        String adminToken,
        String model,
        int contextWindow,
        boolean priorityScheduling,
        int maxLoras,
        int maxCpuLoras) {

    public PoolSettings {
        replicaAdmin = List.copyOf(replicaAdmin);
        routerSettings = Map.copyOf(routerSettings);
        if ((simulate > 0) == (target != null)) {
            throw new IllegalArgumentException("choose exactly one target: --simulate N or --target URL");
        }
        if (simProcesses && simulate == 0) {
            throw new IllegalArgumentException("--sim-processes starts simulated replicas: it needs --simulate N");
        }
        if (!replicaAdmin.isEmpty() && target == null) {
            throw new IllegalArgumentException("--replica-admin names a running pool's fault APIs: it needs --target URL");
        }
        if (engines < 1) {
            throw new IllegalArgumentException("--engines must be >= 1, got " + engines);
        }
        if (routers < 1) {
            throw new IllegalArgumentException("--routers must be >= 1, got " + routers);
        }
        if (stepsPerRouter < 1) {
            throw new IllegalArgumentException("--steps-per-router must be >= 1, got " + stepsPerRouter);
        }
        if (target != null && engines != 1) {
            throw new IllegalArgumentException("--engines and policy@balancer apply to --simulate only; a running pool"
                    + " has its own servers");
        }
        if (target != null && routers != 1) {
            throw new IllegalArgumentException("--routers and policy*K start routers with --simulate; with --target list the"
                    + " running routers: --target URL1,URL2,URL3");
        }
        if (target != null && splitTargets(target).stream().anyMatch(u -> !u.startsWith("http://") && !u.startsWith("https://"))) {
            throw new IllegalArgumentException("--target takes router URLs separated by commas (http://host:port,...), got '"
                    + target + "'");
        }
        if (contextWindow < 0) {
            throw new IllegalArgumentException("--context-window must be >= 0, got " + contextWindow);
        }
        if (scrapeInterval.isNegative() || scrapeInterval.isZero()) {
            throw new IllegalArgumentException("--scrape-interval must be > 0");
        }
        if (maxLoras < 1 || maxCpuLoras < maxLoras) {
            throw new IllegalArgumentException("--max-loras must be >= 1 and --max-cpu-loras >= --max-loras, got " + maxLoras + " and "
                    + maxCpuLoras);
        }
        if (priorityScheduling && (target != null || simProcesses)) {
            throw new IllegalArgumentException("--engine-scheduling priority sets the bench's own in-process engines: it needs --simulate N"
                    + " without --sim-processes (a running pool's engines take vLLM's --scheduling-policy themselves)");
        }
    }

    /** The same pool, asked for {@code name}. */
    public PoolSettings withModel(String name) {
        return new PoolSettings(simulate, target, profile, profileOverrides, engines, dpBalancer, routers, stepsPerRouter, simProcesses,
                replicaAdmin, routerSettings, scrapeInterval, spillThreshold, adminToken, name, contextWindow, priorityScheduling,
                maxLoras, maxCpuLoras);
    }

    /** The --target routers (one, or the members of a cluster), empty with --simulate. */
    public List<String> targets() {
        return target == null ? List.of() : splitTargets(target);
    }

    public boolean simulated() {
        return simulate > 0;
    }

    private static List<String> splitTargets(String text) {
        return java.util.Arrays.stream(text.split(",")).map(String::trim).filter(u -> !u.isEmpty()).toList();
    }
}
