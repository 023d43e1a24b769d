package io.lmwarden.router.placement;

import io.lmwarden.router.pool.ReplicaView;

/**
 * A policy's answer: the replica, the decision, a short reason for logs and the session view, how
 * many prompt tokens the router expects that replica to hold already (0 when it cannot tell), for
 * a session moved off its home, that home (null otherwise), and whether the endpoint's own balancer picks
 * the engine (no {@code X-data-parallel-rank} is sent: the {@code passthrough} policy).
 */
public record Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens, String movedFrom,
                        boolean engineBalances) {

    public Placement(ReplicaView replica, Decision decision, String reason) {
        this(replica, decision, reason, 0, null, false);
    }

    public Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens) {
        this(replica, decision, reason, expectedCachedTokens, null, false);
    }

    public Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens, String movedFrom) {
        this(replica, decision, reason, expectedCachedTokens, movedFrom, false);
    }

    /** A session moved off {@code home} to this placement's replica. */
    public Placement movedFrom(String home) {
        return new Placement(replica, decision, reason, expectedCachedTokens, home, engineBalances);
    }

    public Placement withExpectedCachedTokens(int tokens) {
        return new Placement(replica, decision, reason, tokens, movedFrom, engineBalances);
    }

    public Placement withDecision(Decision d, String why) {
        return new Placement(replica, d, why, expectedCachedTokens, movedFrom, engineBalances);
    }

    /** The same endpoint, but its own balancer picks the engine rank. */
    public Placement leavingRankToEngine() {
        return new Placement(replica, decision, reason, expectedCachedTokens, movedFrom, true);
    }
}
