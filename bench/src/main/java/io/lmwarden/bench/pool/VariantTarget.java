package io.lmwarden.bench.pool;

import io.lmwarden.bench.metrics.ReplicaProbe;

/** The pool as one variant sees it: the URL agents talk to and where the engine figures come from. */
public interface VariantTarget extends AutoCloseable {

    String url();

    ReplicaProbe probe();

    @Override
    void close();
}
