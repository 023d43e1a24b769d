package io.lmwarden.bench.pool;

import io.lmwarden.bench.settings.PoolSettings;
import io.lmwarden.bench.settings.RunPlan;
import io.lmwarden.bench.workload.AdapterMix;
import io.lmwarden.bench.workload.Workload;
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
import io.lmwarden.sim.lora.LoraModule;
import io.lmwarden.sim.lora.LoraOptions;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Simulated replicas and a router in this process. Every variant gets freshly started replicas, so no
 * variant inherits another's warm prefix cache (the bias the published run admits to).
 */
public final class SimulatedTarget implements BenchTarget {

    private final PoolSettings pool;
    private final SimProfile profile;
    private final Map<Integer, String> replicaOverrides;
    private final double timeScale;
    private final long seed;
    private final long ceilingKvTokens;
    private final boolean separateProcesses;
    /** Replicas whose process starts only when a scheduled {@code add replica I} fires (a scale-up). */
    private final java.util.Set<Integer> addedLater;
    /** The workload's LoRA adapters: every replica serves them ({@link AdapterMix#NONE}: LoRA off, as before). */
    private final AdapterMix adapters;

    /**
     * @param pool            replicas, engines, profile, routers and router settings ({@code --simulate} and friends); its
     *                        scrape interval is workload time, divided by the time scale here so that load information is
     *                        as stale at every scale
     * @param plan            the workload: per-replica profile overrides (a heterogeneous pool) and its seed
     * @param ceilingKvTokens KV tokens per replica of the ceiling variant: enough that nothing it will ask for again is
     *                        evicted ({@link #ceilingKvTokens(Workload, int, SimProfile)}, or a trace's)
     */
    public SimulatedTarget(PoolSettings pool, Workload plan, RunPlan run, long ceilingKvTokens) {
        this(pool, plan.replicaOverrides(), run.timeScale(), plan.classes().get(0).shape().seed(), ceilingKvTokens, false,
                addedLater(plan.faults()), plan.adapters());
    }

    /** The profile every replica runs, before per-replica overrides and the ceiling. */
    public static SimProfile profileOf(PoolSettings pool) {
        return ProfileOverrides.apply(SimProfile.named(pool.profile()), pool.profileOverrides());
    }

    /** The replicas a scheduled {@code add replica I} brings: not started with the pool. */
    static java.util.Set<Integer> addedLater(List<ScheduledFault> faults) {
        return faults.stream().filter(f -> f.kind() == ScheduledFault.Kind.ADD).map(ScheduledFault::replica)
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    private SimulatedTarget(PoolSettings pool, Map<Integer, String> replicaOverrides, double timeScale, long seed,
                            long ceilingKvTokens, boolean separateProcesses, java.util.Set<Integer> addedLater, AdapterMix adapters) {
        this.pool = pool;
        this.profile = profileOf(pool);
        this.replicaOverrides = Map.copyOf(replicaOverrides);
        replicaOverrides.keySet().forEach(i -> {
            if (i < 0 || i >= pool.simulate()) {
                throw new IllegalArgumentException("--sim-replica-set names replica " + i + "; the pool has replicas 0.."
                        + (pool.simulate() - 1));
            }
        });
        this.timeScale = timeScale;
        this.seed = seed;
        this.ceilingKvTokens = ceilingKvTokens;
        this.separateProcesses = separateProcesses;
        this.addedLater = java.util.Set.copyOf(addedLater);
        this.adapters = adapters;
        addedLater.forEach(i -> {
            if (i < 0 || i >= pool.simulate()) {
                throw new IllegalArgumentException("'add replica " + i + "': the pool has replicas 0.." + (pool.simulate() - 1)
                        + " (--simulate N counts the replicas added later too)");
            }
        });
    }

    /**
     * KV tokens per replica for the ceiling variant: every session of the largest stage at its largest context (the
     * model's window when the workload's sizes have no bound) on one replica, so affinity's placement can never make a
     * replica evict a block some session will ask for again.
     */
    public static long ceilingKvTokens(Workload plan, int maxSessions, SimProfile profile) {
        long perSession = plan.classes().stream().mapToLong(c -> Math.min(profile.maxModelLen(), c.shape().maxContextTokens()))
                .max().orElse(profile.maxModelLen());
        return (long) maxSessions * perSession;
    }

    /** The profile a variant's replica runs: the ceiling's with a KV cache of {@link #ceilingKvTokens}. */
    private SimProfile forVariant(SimProfile base, SimulatedVariant variant) {
        if (!VariantSpec.parse(variant.policy()).ceiling()) {
            return base;
        }
        long blocks = Math.max(base.kvBlocks(), (ceilingKvTokens + base.blockSize() - 1) / base.blockSize() + 1024);
        return base.withKvBlocks((int) Math.min(Integer.MAX_VALUE, blocks));
    }

    /**
     * The same pool with every replica in a JVM of its own ({@code --sim-processes}): a scheduled kill is then a
     * real SIGKILL of that process, and engine counters come from each replica's {@code /metrics}.
     */
    public SimulatedTarget inSeparateProcesses() {
        return new SimulatedTarget(pool, replicaOverrides, timeScale, seed, ceilingKvTokens, true, addedLater, adapters);
    }

    /**
     * LoRA as vLLM's {@code --enable-lora --lora-modules … --max-loras N --max-cpu-loras M} would serve the workload's
     * adapters (rank 16, vLLM's default; the paths are names only, the simulator reads nothing from them).
     */
    private LoraOptions lora() {
        List<LoraModule> modules = adapters.names().stream().map(n -> new LoraModule(n, "/adapters/" + n, null)).toList();
        return LoraOptions.of(modules, pool.maxLoras(), pool.maxCpuLoras(), 16, false);
    }

    /** The router's scrape interval on the wall clock: workload interval / K, at least 5 ms. */
    Duration wallScrapeInterval() {
        return Duration.ofNanos(Math.max(5_000_000L, (long) (pool.scrapeInterval().toNanos() / timeScale)));
    }

    @Override
    public VariantTarget open(String variantSpec) {
        SimulatedVariant variant = SimulatedVariant.parse(variantSpec, BalancerEra.named(pool.dpBalancer()), pool.routers());
        return separateProcesses ? openProcesses(variant) : openInProcess(variant);
    }

    private VariantTarget openInProcess(SimulatedVariant variant) {
        SimOptions options = SimOptions.defaults().withReplicas(pool.simulate()).withProfile(forVariant(profile, variant))
                .withTimeScale(timeScale).withSeed(seed).withEngines(pool.engines()).withDpBalancer(variant.era())
                .withPriorityScheduling(pool.priorityScheduling());
        if (adapters.present()) {
            options = options.withLora(lora());
        }
        boolean kvEvents = "true".equals(pool.routerSettings().get("kvEvents"));
        // One engine per replica: each publisher binds ephemeral ports and the router is told what was bound. Several
        // engines: the router derives rank r's ports as base + r (vLLM's rule), so they need a run of ports.
        int kvBase = kvEvents && pool.engines() > 1 ? consecutiveFreePorts(2 * pool.simulate() * pool.engines()) : 0;
        if (kvEvents) {
            // --router-set kvEvents=true: the replicas publish vLLM's KV events (events on base + rank, replays after
            // every rank's events port, as the operator lays them out) and the router follows them.
            int ranks = pool.simulate() * pool.engines();
            options = options.withKvEvents(io.lmwarden.sim.kvevents.KvEventsConfig.parse("{\"enable_kv_cache_events\":true,"
                    + "\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:" + kvBase + "\",\"replay_endpoint\":\"tcp://*:"
                    + (kvBase == 0 ? 0 : kvBase + ranks) + "\"}"));
        }
        for (Map.Entry<Integer, String> e : replicaOverrides.entrySet()) {
            options = options.withReplicaProfile(e.getKey(), forVariant(ProfileOverrides.apply(profile, e.getValue()), variant));
        }
        SimCluster cluster = SimCluster.start(options);
        LoopbackRouters routers;
        try {
            List<String> kvPorts = new java.util.ArrayList<>();
            int ranks = pool.simulate() * pool.engines();
            for (int i = 0; i < cluster.replicas().size(); i++) {
                if (!kvEvents) {
                    kvPorts.add("");
                } else if (kvBase > 0) {
                    kvPorts.add("kv=" + (kvBase + i * pool.engines()) + "&replay=" + (kvBase + ranks + i * pool.engines()));
                } else {
                    io.lmwarden.sim.SimReplica r = cluster.replicas().get(i);
                    kvPorts.add("kv=" + r.kvEventPorts().get(0) + "&replay=" + r.kvEventReplayPorts().get(0));
                }
            }
            routers = startRouters(variant, cluster.replicas().stream().map(r -> r.id()).toList(), cluster.urls(), kvPorts);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return new RoutedPool(routers, new SimulatedEnginesProbe(cluster.replicas()), null, fault -> {
            if (fault.replica() >= cluster.replicas().size()) {
                return "no replica " + fault.replica() + " (the pool has " + cluster.replicas().size() + ")";
            }
            if (fault.kind() == ScheduledFault.Kind.KILL) {
                cluster.kill(fault.replica());
                return "killed sim-" + fault.replica() + " (in-process: its server closed)";
            }
            if (fault.kind() == ScheduledFault.Kind.DRAIN) {
                return SimFaultsApi.drain(routers.adminUrl(), cluster.replicas().get(fault.replica()).id());
            }
            cluster.armFaults(fault.replica(), fault.simFaultsBody());
            return "armed on sim-" + fault.replica();
        }, cluster::close);
    }

    private VariantTarget openProcesses(SimulatedVariant variant) {
        List<SimProfile> profiles = new java.util.ArrayList<>();
        for (int i = 0; i < pool.simulate(); i++) {
            profiles.add(forVariant(replicaOverrides.containsKey(i) ? ProfileOverrides.apply(profile, replicaOverrides.get(i)) : profile,
                    variant));
        }
        SimProcessPool processes = SimProcessPool.start(profiles, timeScale, seed, pool.engines(), variant.era(), addedLater);
        LoopbackRouters routers;
        try {
            routers = startRouters(variant, processes.ids(), processes.urls(), java.util.Collections.nCopies(processes.ids().size(), ""));
        } catch (RuntimeException e) {
            processes.close();
            throw e;
        }
        LoopbackRouters started = routers;
        ReplicaProbe probe = new ReplicaMetricsProbe(processes.ids(), processes.urls());
        return new RoutedPool(routers, probe, new ReplicaOperations(processes, started::adminUrl, probe), fault ->
                fault.kind() == ScheduledFault.Kind.DRAIN && fault.replica() < processes.ids().size()
                        ? SimFaultsApi.drain(started.adminUrl(), processes.ids().get(fault.replica()))
                        : processes.inject(fault), processes::close);
    }

    /**
     * A variant's routers in front of its replicas; closing it stops the routers, then the replicas.
     *
     * @param operations replica Day-2 operations (separate processes only), else null
     */
    private record RoutedPool(LoopbackRouters routers, ReplicaProbe probe, ReplicaOperations operations,
                              java.util.function.Function<ScheduledFault, String> faults,
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
        public String inject(ScheduledFault fault, PoolEvents events) {
            if (!fault.kind().changesPool()) {
                return faults.apply(fault);
            }
            if (fault.kind() == ScheduledFault.Kind.RESTART_ROUTER) {
                return restartRouters(fault.replica(), events);
            }
            if (operations == null) {
                return fault.describe() + ": needs --sim-processes (it stops and starts replica processes)";
            }
            return switch (fault.kind()) {
                case UPGRADE -> operations.upgrade(fault.replica(), events);
                case REMOVE -> operations.remove(fault.replica(), events);
                case ADD -> operations.add(fault.replica(), events);
                default -> throw new IllegalStateException("not a replica operation: " + fault.kind());
            };
        }

        /** One router, or every one in turn ({@link ScheduledFault#ALL}), each back in rotation before the next goes. */
        private String restartRouters(int only, PoolEvents events) {
            if (only >= routers.size()) {
                return "no router " + only + " (the variant has " + routers.size() + ")";
            }
            String what = only < 0 ? "restart routers" : "restart router " + only;
            events.record(what, PoolEvents.BEGIN, "");
            for (int i = 0; i < routers.size(); i++) {
                if (only < 0 || i == only) {
                    routers.restart(i, events);
                }
            }
            events.record(what, PoolEvents.END, "");
            return what + " done";
        }

        @Override
        public boolean inRotation(int router) {
            return routers.rotation().inRotation(router);
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
    private LoopbackRouters startRouters(SimulatedVariant variant, List<String> ids, List<String> urls, List<String> kvPorts) {
        List<String> entries = new java.util.ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            List<String> fragment = new java.util.ArrayList<>();
            if (pool.engines() > 1) {
                fragment.add("ranks=" + pool.engines());
            }
            if (!kvPorts.get(i).isEmpty()) {
                fragment.add(kvPorts.get(i));
            }
            entries.add(ids.get(i) + "=" + urls.get(i) + (fragment.isEmpty() ? "" : "#" + String.join("&", fragment)));
        }
        // Defaults (plus --router-set), then what the variant asks for: "default" changes nothing.
        RouterConfig base = io.lmwarden.router.config.ConfigResolver.resolve(Map.of(), Map.of(), routerSettings())
                .withPort(0).withReplicas(entries);
        RouterConfig config = VariantSpec.parse(variant.policy()).apply(base).withTimeScale(timeScale)
                .withScrapeInterval(wallScrapeInterval()).withPrefillMsPerToken(profile.prefillMsPerToken());
        if (pool.spillThreshold() != null) {
            config = config.withSpillThreshold(SpillThreshold.parse(pool.spillThreshold()));
        }
        // A cluster name of this variant's own: no other bench or test on the machine can join it.
        return LoopbackRouters.start(config, variant.routers(), "lmw-bench-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    /**
     * {@code --router-set}, and with adapters the engines' {@code max_loras} as the router's {@code maxLoras}, as the
     * operator sets it from {@code spec.lora.maxLoras} (a replica whose engine has not stepped yet counts that many slots).
     */
    private Map<String, String> routerSettings() {
        Map<String, String> settings = new java.util.HashMap<>(pool.routerSettings());
        if (adapters.present()) {
            settings.putIfAbsent(io.lmwarden.router.config.PlacementSettings.MAX_LORAS.key(), String.valueOf(pool.maxLoras()));
        }
        return settings;
    }

    /** A run of free loopback ports (probed; a publisher binds them right after). */
    private static int consecutiveFreePorts(int count) {
        java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20_000 + random.nextInt(40_000 - count);
            List<java.net.ServerSocket> held = new java.util.ArrayList<>();
            boolean free = true;
            try {
                for (int p = base; p < base + count; p++) {
                    java.net.ServerSocket s = new java.net.ServerSocket();
                    held.add(s);
                    s.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), p));
                }
            } catch (java.io.IOException e) {
                free = false;
            } finally {
                for (java.net.ServerSocket s : held) {
                    try {
                        s.close();
                    } catch (java.io.IOException ignored) {
                        // a probe
                    }
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports for the simulated KV-event publishers");
    }

    @Override
    public String describe() {
        StringBuilder overrides = new StringBuilder();
        replicaOverrides.forEach((i, o) -> overrides.append("; replica ").append(i).append(": ")
                .append(ProfileOverrides.describe(ProfileOverrides.apply(profile, o))));
        int replicas = pool.simulate();
        String servers = pool.engines() == 1 ? replicas + " simulated replicas"
                : replicas + " simulated data-parallel server" + (replicas == 1 ? "" : "s") + " of " + pool.engines()
                + " engines each (internal balancer " + BalancerEra.named(pool.dpBalancer()).flag() + " unless the variant names one)";
        return servers + (separateProcesses ? ", each in a JVM of its own (lmw-sim; kills are SIGKILL)" : "")
                + (adapters.present() ? ", LoRA on (" + adapters.count() + " adapters, max_loras " + pool.maxLoras()
                + ", max_cpu_loras " + pool.maxCpuLoras() + ")" : "")
                + " (profile " + ProfileOverrides.describe(profile) + overrides
                + "; fresh for every variant) behind " + (pool.routers() == 1 ? "an in-process router"
                : pool.routers() + " in-process routers clustered over loopback (steps sent to them in turn)")
                + " (a variant policy*K: K clustered routers)"
                + " scraping engine load every " + pool.scrapeInterval().toMillis() + " ms of workload time"
                + (pool.routerSettings().isEmpty() ? "" : "; router settings " + new java.util.TreeMap<>(pool.routerSettings()))
                + "; the ceiling variant's replicas hold " + String.format(java.util.Locale.ROOT, "%,d", forVariant(profile,
                new SimulatedVariant(VariantSpec.CEILING, BalancerEra.CURRENT, 1)).kvCapacityTokens()) + " KV tokens each";
    }
}
