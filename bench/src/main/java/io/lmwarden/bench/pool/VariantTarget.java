package io.lmwarden.bench.pool;

import io.lmwarden.bench.metrics.ReplicaProbe;
import io.lmwarden.bench.workload.ScheduledFault;

/** The pool as one variant sees it: the URL agents talk to and where the engine figures come from. */
public interface VariantTarget extends AutoCloseable {

    /** The first (or only) router's URL: model discovery and admin calls go there. */
    String url();

    /** Every router agents talk to; steps go to them in turn (one router: just {@link #url()}). */
    default java.util.List<String> urls() {
        return java.util.List.of(url());
    }

    ReplicaProbe probe();

    /** Applies a scheduled fault to replica {@code fault.replica()}; returns what happened, for the progress line. Blocks. */
    String inject(ScheduledFault fault);

    /**
     * As {@link #inject(ScheduledFault)}, with the phases of a Day-2 operation (upgrade, remove, add, restart router)
     * recorded in {@code events}; a target that cannot change its pool says so.
     */
    default String inject(ScheduledFault fault, PoolEvents events) {
        return fault.kind().changesPool() ? fault.describe() + ": this target cannot change its pool (needs --simulate"
                + (fault.kind().needsProcesses() ? " with --sim-processes)" : ")") : inject(fault);
    }

    /** Whether steps may go to router {@code i} now (a router being restarted is out of rotation). */
    default boolean inRotation(int router) {
        return true;
    }

    @Override
    void close();
}
