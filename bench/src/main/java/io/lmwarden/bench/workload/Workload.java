package io.lmwarden.bench.workload;

import io.lmwarden.bench.client.ApiFlavour;

import java.util.List;
import java.util.Map;

/**
 * What a run sends and to what pool: the session classes, per-replica profile overrides of the simulated pool
 * (a slower card), and faults on a schedule.
 *
 * @param replicaOverrides replica index → {@code name=value,...} profile constants (with --simulate)
 */
public record Workload(List<SessionClass> classes, Map<Integer, String> replicaOverrides, List<ScheduledFault> faults) {

    public Workload {
        classes = List.copyOf(classes);
        replicaOverrides = Map.copyOf(replicaOverrides);
        faults = List.copyOf(faults);
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("a workload needs at least one session class");
        }
        if (classes.stream().map(SessionClass::name).distinct().count() != classes.size()) {
            throw new IllegalArgumentException("session class names must be distinct");
        }
    }

    public static Workload single(WorkloadSpec shape, ApiFlavour api) {
        return new Workload(List.of(SessionClass.single(shape, api)), Map.of(), List.of());
    }

    /**
     * The flag shorthand's {@code --shared-first-message} and {@code --keyless}: every class starts from one template
     * first message, and/or sends no session key.
     */
    public Workload withIdentity(boolean sharedFirstMessage, boolean keyless) {
        List<SessionClass> changed = classes.stream().map(c -> new SessionClass(c.name(), c.share(), c.shape(), c.systemScope(),
                c.sharedFirstMessage() || sharedFirstMessage, c.maxFollowUpSteps(), c.api(),
                keyless ? SessionKeying.NONE : c.keying())).toList();
        return new Workload(changed, replicaOverrides, faults);
    }

    public Workload withReplicaOverrides(Map<Integer, String> more) {
        Map<Integer, String> m = new java.util.TreeMap<>(replicaOverrides);
        m.putAll(more);
        return new Workload(classes, m, faults);
    }

    public Workload withFaults(List<ScheduledFault> more) {
        List<ScheduledFault> all = new java.util.ArrayList<>(faults);
        all.addAll(more);
        return new Workload(classes, replicaOverrides, all);
    }

    /** Same classes, other prompts: for unmeasured warm-up load. */
    public Workload reseeded(long delta) {
        return new Workload(classes.stream().map(c -> new SessionClass(c.name(), c.share(), c.shape().withSeed(c.shape().seed() + delta),
                c.systemScope(), c.sharedFirstMessage(), c.maxFollowUpSteps(), c.api(), c.keying())).toList(), replicaOverrides, List.of());
    }
}
