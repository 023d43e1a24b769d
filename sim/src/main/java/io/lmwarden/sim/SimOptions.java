package io.lmwarden.sim;

import io.lmwarden.sim.dp.BalancerEra;
import io.lmwarden.sim.kvevents.KvEventsConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How to start a {@link SimCluster}. {@code basePort} 0 means any free ports.
 *
 * @param servedModelNames the names every replica answers to, like vLLM's {@code --served-model-name A B …};
 *                         the first is the one metrics are labelled with
 * @param replicaProfiles  per-replica profiles that replace {@code profile} for those replica indexes
 *                         (a heterogeneous pool: one slower card)
 * @param engines          engines behind each replica's one port; more than one makes every replica a data-parallel
 *                         server ({@code vllm serve --data-parallel-size N}) whose internal balancer is {@code dpBalancer}'s
 * @param kvEvents         vLLM's {@code --kv-events-config}; with several replicas, replica i publishes on the endpoints'
 *                         ports + i × engines (its engine e on + e, vLLM's per-rank rule)
 * @param lora             LoRA adapters (vLLM's {@code --enable-lora} and its flags); off by default
 * @param priorityScheduling vLLM's {@code --scheduling-policy priority}: every engine orders its waiting queue and picks
 *                         whom to preempt by the requests' {@code priority}; false is vLLM's default, {@code fcfs}
 */
public record SimOptions(String host, int basePort, int replicas, List<String> servedModelNames,
                         SimProfile profile, Map<Integer, SimProfile> replicaProfiles, double timeScale, long seed,
                         OutputLength outputLength, int engines, BalancerEra dpBalancer, KvEventsConfig kvEvents,
                         io.lmwarden.sim.lora.LoraOptions lora, boolean priorityScheduling) {

    public static final String DEFAULT_MODEL = "Qwen/Qwen3-4B-Instruct-2507";

    public SimOptions {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1");
        }
        if (basePort < 0 || basePort > 65535) {
            throw new IllegalArgumentException("port must be 0..65535");
        }
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new IllegalArgumentException("time scale must be a positive number");
        }
        if (servedModelNames == null || servedModelNames.isEmpty()
                || servedModelNames.stream().anyMatch(n -> n == null || n.isBlank())
                || host == null || host.isBlank() || profile == null || outputLength == null || dpBalancer == null) {
            throw new IllegalArgumentException("host, at least one model name and a profile are required");
        }
        if (engines < 1) {
            throw new IllegalArgumentException("engines must be at least 1");
        }
        kvEvents = kvEvents == null ? KvEventsConfig.DISABLED : kvEvents;
        lora = lora == null ? io.lmwarden.sim.lora.LoraOptions.DISABLED : lora;
        servedModelNames = List.copyOf(new LinkedHashSet<>(servedModelNames));
        replicaProfiles = Map.copyOf(replicaProfiles == null ? Map.of() : replicaProfiles);
        for (int i : replicaProfiles.keySet()) {
            if (i < 0 || i >= replicas) {
                throw new IllegalArgumentException("a profile override names replica " + i + "; replicas are 0.." + (replicas - 1));
            }
        }
    }

    public static SimOptions defaults() {
        return new SimOptions("127.0.0.1", 0, 1, List.of(DEFAULT_MODEL), SimProfile.defaultProfile(), Map.of(), 1.0, 42L,
                OutputLength.FIXED, 1, BalancerEra.CURRENT, KvEventsConfig.DISABLED,
                io.lmwarden.sim.lora.LoraOptions.DISABLED, false);
    }

    /** The first served name: what /metrics labels carry. */
    public String model() {
        return servedModelNames.get(0);
    }

    /** The profile replica {@code index} runs with. */
    public SimProfile profileOf(int index) {
        return replicaProfiles.getOrDefault(index, profile);
    }

    public SimOptions withReplicas(int n) {
        return new SimOptions(host, basePort, n, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withBasePort(int p) {
        return new SimOptions(host, p, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    /** Serves exactly this one name. */
    public SimOptions withModel(String m) {
        return withServedModelNames(List.of(m));
    }

    public SimOptions withServedModelNames(List<String> names) {
        return new SimOptions(host, basePort, replicas, names, profile, replicaProfiles, timeScale, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    /** Keeps the served names and adds {@code more} after them. */
    public SimOptions withAdditionalModelNames(List<String> more) {
        List<String> all = new ArrayList<>(servedModelNames);
        all.addAll(more);
        return withServedModelNames(all);
    }

    public SimOptions withProfile(SimProfile p) {
        return new SimOptions(host, basePort, replicas, servedModelNames, p, replicaProfiles, timeScale, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withReplicaProfile(int index, SimProfile p) {
        Map<Integer, SimProfile> m = new TreeMap<>(replicaProfiles);
        m.put(index, p);
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, m, timeScale, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withTimeScale(double k) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, k, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withSeed(long s) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, s, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withHost(String h) {
        return new SimOptions(h, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withOutputLength(OutputLength o) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, o, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    /** Kept for callers of the two-mode simulator: true = uniform, false = fixed. */
    public SimOptions withRandomOutputLength(boolean b) {
        return withOutputLength(b ? OutputLength.UNIFORM : OutputLength.FIXED);
    }

    public SimOptions withEngines(int n) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength,
                n, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withDpBalancer(BalancerEra era) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength,
                engines, era, kvEvents, lora, priorityScheduling);
    }

    /** A host-memory KV tier of {@code gib} GiB on every replica (every profile, the per-replica ones too); 0 = none. */
    public SimOptions withKvOffloadGib(double gib) {
        Map<Integer, SimProfile> m = new TreeMap<>();
        replicaProfiles.forEach((i, p) -> m.put(i, p.withKvOffloadGib(gib)));
        return new SimOptions(host, basePort, replicas, servedModelNames, profile.withKvOffloadGib(gib), m, timeScale, seed,
                outputLength, engines, dpBalancer, kvEvents, lora, priorityScheduling);
    }

    public SimOptions withKvEvents(KvEventsConfig config) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength,
                engines, dpBalancer, config, lora, priorityScheduling);
    }

    /** LoRA adapters as vLLM's --enable-lora and its flags configure them (every replica the same). */
    public SimOptions withLora(io.lmwarden.sim.lora.LoraOptions options) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength,
                engines, dpBalancer, kvEvents, options, priorityScheduling);
    }

    /**
     * Reads a scheduling policy as vLLM's {@code --scheduling-policy} names it: true for {@code priority}, false for
     * {@code fcfs}; anything else is refused naming {@code flag} (the simulator's and the bench's own flags).
     */
    public static boolean priorityScheduling(String flag, String policy) {
        return switch (policy) {
            case "fcfs" -> false;
            case "priority" -> true;
            default -> throw new IllegalArgumentException(flag + " must be fcfs or priority, got " + policy);
        };
    }

    /** Every engine under vLLM's {@code --scheduling-policy priority} (true) or {@code fcfs}. */
    public SimOptions withPriorityScheduling(boolean on) {
        return new SimOptions(host, basePort, replicas, servedModelNames, profile, replicaProfiles, timeScale, seed, outputLength,
                engines, dpBalancer, kvEvents, lora, on);
    }
}
