package io.lmwarden.router.placement;

import io.lmwarden.router.pool.ReplicaView;

/**
 * A policy's answer: the replica, the decision, a short reason for logs and the session view, how
 * many prompt tokens the router expects that replica to hold already (0 when it cannot tell), and for
 * a session moved off its home, that home (null otherwise).
 */
public record Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens, String movedFrom) {

    public Placement(ReplicaView replica, Decision decision, String reason) {
        this(replica, decision, reason, 0, null);
    }

    public Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens) {
        this(replica, decision, reason, expectedCachedTokens, null);
    }

    /** A session moved off {@code home} to this placement's replica. */
    public Placement movedFrom(String home) {
        return new Placement(replica, decision, reason, expectedCachedTokens, home);
    }

    public Placement withExpectedCachedTokens(int tokens) {
        return new Placement(replica, decision, reason, tokens, movedFrom);
    }

    public Placement withDecision(Decision d, String why) {
        return new Placement(replica, d, why, expectedCachedTokens, movedFrom);
    }
}
