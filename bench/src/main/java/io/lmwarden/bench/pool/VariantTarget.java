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

    @Override
    void close();
}
