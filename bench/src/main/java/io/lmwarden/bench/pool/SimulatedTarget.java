package io.lmwarden.bench.pool;

import io.lmwarden.bench.metrics.ReplicaMetricsProbe;
import io.lmwarden.bench.metrics.ReplicaProbe;
import io.lmwarden.bench.metrics.SimulatedEnginesProbe;
import io.lmwarden.bench.workload.ScheduledFault;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Simulated replicas and a router in this process. Every variant gets freshly started replicas, so no
 * variant inherits another's warm prefix cache (the bias the published run admits to).
 */
public final class SimulatedTarget implements BenchTarget {

    private final int replicas;
    private final int engines;
    private final BalancerEra defaultEra;
    private final SimProfile profile;
    private final Map<Integer, String> replicaOverrides;
    private final double timeScale;
    private final long seed;
    private final String spillThreshold;
    private final Duration scrapeInterval;
    private final java.util.Map<String, String> routerSettings;
    private final int defaultRouters;
    private final boolean separateProcesses;

    /**
     * @param scrapeInterval how often the router reads the engines' load, in workload time; it is divided by
     *                       the time scale here so that load information is as stale at every scale
     */
    public SimulatedTarget(int replicas, SimProfile profile, double timeScale, long seed, String spillThreshold,
                           Duration scrapeInterval) {
        this(replicas, 1, BalancerEra.CURRENT, profile, Map.of(), timeScale, seed, spillThreshold, scrapeInterval, Map.of());
    }

    /**
     * @param engines          engines behind each replica's port: more than one makes each a {@code vllm serve
     *                         --data-parallel-size N} server (the router then sees its engine ranks as replicas)
     * @param defaultEra       its internal balancer, unless a variant says {@code policy@era}
     * @param replicaOverrides profile overrides for single replicas (a heterogeneous pool)
     * @param routerSettings   router YAML keys and values (--router-set) for every variant's router
     */
    public SimulatedTarget(int replicas, int engines, BalancerEra defaultEra, SimProfile profile,
                           Map<Integer, String> replicaOverrides, double timeScale, long seed,
                           String spillThreshold, Duration scrapeInterval, Map<String, String> routerSettings) {
        this(replicas, engines, defaultEra, profile, replicaOverrides, timeScale, seed, spillThreshold, scrapeInterval,
                routerSettings, 1);
    }

    /**
     * @param defaultRouters routers in front of the replicas (--routers), unless a variant says {@code policy*K};
     *                       more than one are clustered over loopback and agents' steps go to them in turn
     */
    public SimulatedTarget(int replicas, int engines, BalancerEra defaultEra, SimProfile profile,
                           Map<Integer, String> replicaOverrides, double timeScale, long seed,
                           String spillThreshold, Duration scrapeInterval, Map<String, String> routerSettings, int defaultRouters) {
        this(replicas, engines, defaultEra, profile, replicaOverrides, timeScale, seed, spillThreshold, scrapeInterval,
                routerSettings, defaultRouters, false);
    }

    private SimulatedTarget(int replicas, int engines, BalancerEra defaultEra, SimProfile profile,
                            Map<Integer, String> replicaOverrides, double timeScale, long seed,
                            String spillThreshold, Duration scrapeInterval, Map<String, String> routerSettings,
                            int defaultRouters, boolean separateProcesses) {
        if (defaultRouters < 1) {
            throw new IllegalArgumentException("--routers must be >= 1, got " + defaultRouters);
        }
        this.defaultRouters = defaultRouters;
        this.separateProcesses = separateProcesses;
        this.routerSettings = Map.copyOf(routerSettings);
        this.replicas = replicas;
        this.engines = engines;
        this.defaultEra = defaultEra;
        this.profile = profile;
        this.replicaOverrides = Map.copyOf(replicaOverrides);
        replicaOverrides.keySet().forEach(i -> {
            if (i < 0 || i >= replicas) {
                throw new IllegalArgumentException("--sim-replica-set names replica " + i + "; the pool has replicas 0.." + (replicas - 1));
            }
        });
        this.timeScale = timeScale;
        this.seed = seed;
        this.spillThreshold = spillThreshold;
        this.scrapeInterval = scrapeInterval;
    }

    /**
     * The same pool with every replica in a JVM of its own ({@code --sim-processes}): a scheduled kill is then a
     * real SIGKILL of that process, and engine counters come from each replica's {@code /metrics}.
     */
    public SimulatedTarget inSeparateProcesses() {
        return new SimulatedTarget(replicas, engines, defaultEra, profile, replicaOverrides, timeScale, seed, spillThreshold,
                scrapeInterval, routerSettings, defaultRouters, true);
    }

    /** The router's scrape interval on the wall clock: workload interval / K, at least 5 ms. */
    Duration wallScrapeInterval() {
        return Duration.ofNanos(Math.max(5_000_000L, (long) (scrapeInterval.toNanos() / timeScale)));
    }

    @Override
    public VariantTarget open(String variantSpec) {
        SimulatedVariant variant = SimulatedVariant.parse(variantSpec, defaultEra, defaultRouters);
        return separateProcesses ? openProcesses(variant) : openInProcess(variant);
    }

    private VariantTarget openInProcess(SimulatedVariant variant) {
        SimOptions options = SimOptions.defaults().withReplicas(replicas).withProfile(profile).withTimeScale(timeScale).withSeed(seed)
                .withEngines(engines).withDpBalancer(variant.era());
        for (Map.Entry<Integer, String> e : replicaOverrides.entrySet()) {
            options = options.withReplicaProfile(e.getKey(), ProfileOverrides.apply(profile, e.getValue()));
        }
        SimCluster cluster = SimCluster.start(options);
        LoopbackRouters routers;
        try {
            routers = startRouters(variant, cluster.replicas().stream().map(r -> r.id()).toList(), cluster.urls());
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return new RoutedPool(routers, new SimulatedEnginesProbe(cluster.replicas()), fault -> {
            if (fault.replica() >= cluster.replicas().size()) {
                return "no replica " + fault.replica() + " (the pool has " + cluster.replicas().size() + ")";
            }
            if (fault.kind() == ScheduledFault.Kind.KILL) {
                cluster.kill(fault.replica());
                return "killed sim-" + fault.replica() + " (in-process: its server closed)";
            }
            cluster.armFaults(fault.replica(), fault.simFaultsBody());
            return "armed on sim-" + fault.replica();
        }, cluster::close);
    }

    private VariantTarget openProcesses(SimulatedVariant variant) {
        List<SimProfile> profiles = new java.util.ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            profiles.add(replicaOverrides.containsKey(i) ? ProfileOverrides.apply(profile, replicaOverrides.get(i)) : profile);
        }
        SimProcessPool pool = SimProcessPool.start(profiles, timeScale, seed, engines, variant.era());
        LoopbackRouters routers;
        try {
            routers = startRouters(variant, pool.ids(), pool.urls());
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        return new RoutedPool(routers, new ReplicaMetricsProbe(pool.ids(), pool.urls()), pool::inject, pool::close);
    }

    /** A variant's routers in front of its replicas; closing it stops the routers, then the replicas. */
    private record RoutedPool(LoopbackRouters routers, ReplicaProbe probe, java.util.function.Function<ScheduledFault, String> faults,
                              Runnable closeReplicas) implements VariantTarget {
        @Override
        public String url() {
            return routers.urls().get(0);
        }

        @Override
        public List<String> urls() {
            return routers.urls();
        }

        @Override
        public String inject(ScheduledFault fault) {
            return faults.apply(fault);
        }

        @Override
        public void close() {
            routers.close();
            closeReplicas.run();
        }
    }

    /**
     * The variant's routers over the replicas (more than one: clustered over loopback). The cost policy's prefill-rate prior is the simulated engine's own, as
     * with --simulate. Entries are named like the engines' probe ("sim-i"), so X-LMW-Replica and the per-replica
     * counters line up. Ranks are declared, as an operator who knows the servers' --data-parallel-size would: no first
     * requests go out as one plain replica before the first scrape reveals the engines.
     */
    private LoopbackRouters startRouters(SimulatedVariant variant, List<String> ids, List<String> urls) {
        List<String> entries = new java.util.ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            entries.add(ids.get(i) + "=" + urls.get(i) + (engines == 1 ? "" : "#ranks=" + engines));
        }
        // Defaults (plus --router-set), then what the variant asks for: "default" changes nothing.
        RouterConfig base = io.lmwarden.router.config.ConfigResolver.resolve(Map.of(), Map.of(), routerSettings)
                .withPort(0).withReplicas(entries);
        RouterConfig config = VariantSpec.parse(variant.policy()).apply(base).withTimeScale(timeScale)
                .withScrapeInterval(wallScrapeInterval()).withPrefillMsPerToken(profile.prefillMsPerToken());
        if (spillThreshold != null) {
            config = config.withSpillThreshold(SpillThreshold.parse(spillThreshold));
        }
        // A cluster name of this variant's own: no other bench or test on the machine can join it.
        return LoopbackRouters.start(config, variant.routers(), "lmw-bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    @Override
    public String describe() {
        StringBuilder overrides = new StringBuilder();
        replicaOverrides.forEach((i, o) -> overrides.append("; replica ").append(i).append(": ")
                .append(ProfileOverrides.describe(ProfileOverrides.apply(profile, o))));
        String servers = engines == 1 ? replicas + " simulated replicas"
                : replicas + " simulated data-parallel server" + (replicas == 1 ? "" : "s") + " of " + engines
                + " engines each (internal balancer " + defaultEra.flag() + " unless the variant names one)";
        return servers + (separateProcesses ? ", each in a JVM of its own (lmw-sim; kills are SIGKILL)" : "")
                + " (profile " + ProfileOverrides.describe(profile) + overrides
                + "; fresh for every variant) behind " + (defaultRouters == 1 ? "an in-process router"
                : defaultRouters + " in-process routers clustered over loopback (steps sent to them in turn)")
                + " (a variant policy*K: K clustered routers)"
                + " scraping engine load every " + scrapeInterval.toMillis() + " ms of workload time"
                + (routerSettings.isEmpty() ? "" : "; router settings " + new java.util.TreeMap<>(routerSettings));
    }
}
