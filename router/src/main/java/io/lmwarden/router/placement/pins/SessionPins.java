package io.lmwarden.router.placement.pins;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Where each session lives: (model key, session key) → replica id. What placement reads and writes; a
 * single router keeps it in memory ({@link AffinityTable}), several routers share it
 * ({@code cluster.ClusteredPins}). A lookup of a pinned session must stay local (no round trip to a peer).
 */
public interface SessionPins {

    /** The session's replica if it has one and it has not gone idle; touches the entry. */
    Optional<String> lookup(String model, String sessionKey, long nowNanos);

    /**
     * Pins a session that has no usable home ({@code previous}: the home it had, now unavailable, or
     * empty) to {@code replicaId}, unless another router has pinned it since; completes with the pin that
     * holds, which is the other router's when it won the race. Never waits for a peer: a table of one
     * router returns it complete, a shared one completes it when the cluster has settled the write
     * (on one of the cluster's threads).
     */
    CompletionStage<String> claim(String model, String sessionKey, Optional<String> previous, String replicaId, long nowNanos);

    /** Re-pins (moves) a session, whatever it was pinned to. */
    void pin(String model, String sessionKey, String replicaId, long nowNanos);

    /** Forgets entries idle longer than the timeout; returns how many. Called on a timer. */
    int expireIdle(long nowNanos);

    /** The replica left the pool or stopped being ready: its sessions have no home any more. Returns how many. */
    int release(String replicaId);

    /** The session's replica without touching it. */
    Optional<String> peek(String model, String sessionKey);

    int size();

    /** Sessions pinned to one replica. */
    int sessionsOn(String replicaId);

    Map<String, Integer> sessionsPerReplica();
}
