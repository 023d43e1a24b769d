package io.lmwarden.bench.pool;

/**
 * Where a variant runs: freshly started simulated replicas behind an in-process router, or a running
 * router whose policy is switched between variants.
 */
public interface BenchTarget {

    /** Prepares the pool for one variant (one routing policy) and returns its entry point. */
    VariantTarget open(String policy) throws Exception;

    /** One line for the report: what was measured. */
    String describe();
}
