package io.lmwarden.bench.workload;

import io.lmwarden.common.api.ApiDialect;

import java.util.List;
import java.util.Map;

/**
 * What a run sends and to what pool: the session classes, per-replica profile overrides of the simulated pool
 * (a slower card), faults on a schedule, and the LoRA adapters sessions may run on.
 *
 * @param replicaOverrides replica index → {@code name=value,...} profile constants (with --simulate)
 * @param start            how the sessions a stage adds begin (replacements of finished sessions always start fresh)
 * @param adapters         the adapters beside the base model and the sessions' share on them ({@link AdapterMix#NONE}:
 *                         every session on the base model)
 */
public record Workload(List<SessionClass> classes, Map<Integer, String> replicaOverrides, List<ScheduledFault> faults,
                       SessionStart start, AdapterMix adapters) {

    public Workload {
        classes = List.copyOf(classes);
        replicaOverrides = Map.copyOf(replicaOverrides);
        faults = List.copyOf(faults);
        adapters = adapters == null ? AdapterMix.NONE : adapters;
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("a workload needs at least one session class");
        }
        if (classes.stream().map(SessionClass::name).distinct().count() != classes.size()) {
            throw new IllegalArgumentException("session class names must be distinct");
        }
    }

    public static Workload single(WorkloadSpec shape, ApiDialect api) {
        return new Workload(List.of(SessionClass.single(shape, api)), Map.of(), List.of(), SessionStart.FRESH, AdapterMix.NONE);
    }

    /**
     * The flag shorthand's {@code --shared-first-message} and {@code --keyless}: every class starts from one template
     * first message, and/or sends no session key.
     */
    public Workload withIdentity(boolean sharedFirstMessage, boolean keyless) {
        List<SessionClass> changed = classes.stream().map(c -> c.withIdentity(c.sharedFirstMessage() || sharedFirstMessage,
                keyless ? SessionKeying.NONE : c.keying())).toList();
        return new Workload(changed, replicaOverrides, faults, start, adapters);
    }

    public Workload withReplicaOverrides(Map<Integer, String> more) {
        Map<Integer, String> m = new java.util.TreeMap<>(replicaOverrides);
        m.putAll(more);
        return new Workload(classes, m, faults, start, adapters);
    }

    public Workload withFaults(List<ScheduledFault> more) {
        List<ScheduledFault> all = new java.util.ArrayList<>(faults);
        all.addAll(more);
        return new Workload(classes, replicaOverrides, all, start, adapters);
    }

    /** Calls per fresh session on average, over the classes as their shares mix them. */
    public double meanCallsPerSession() {
        double shares = classes.stream().mapToDouble(SessionClass::share).sum();
        return classes.stream().mapToDouble(c -> c.share() * c.shape().calls().mean()).sum() / shares;
    }

    /** Same classes, other prompts, no faults: for unmeasured warm-up load. */
    public Workload reseeded(long delta) {
        return new Workload(classes.stream().map(c -> c.withShape(c.shape().withSeed(c.shape().seed() + delta))).toList(),
                replicaOverrides, List.of(), start, adapters);
    }

    /** Every class drawn from {@code seed} (the probe gives each run prompts the pool has not seen). */
    public Workload withSeed(long seed) {
        return new Workload(classes.stream().map(c -> c.withShape(c.shape().withSeed(seed))).toList(), replicaOverrides, faults, start,
                adapters);
    }

    /** The sessions a stage adds start as {@code s} says ({@code --start}). */
    public Workload withStart(SessionStart s) {
        return new Workload(classes, replicaOverrides, faults, s, adapters);
    }
}
