package io.lmwarden.bench.metrics;

import io.vertx.core.Future;

import java.util.List;

/**
 * Reads every replica's engine figures. Two sources exist: the simulated engines' own counters, read
 * in-process (exact and free), and a running router's {@code /api/replicas} (what a cluster exposes).
 */
public interface ReplicaProbe {

    Future<List<ReplicaReading>> read();

    /** Where the figures come from, for the report. */
    String describe();
}
