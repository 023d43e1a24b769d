package io.lmwarden.router.placement;

import io.lmwarden.router.pool.ReplicaView;

/**
 * A policy's answer: the replica, the decision, a short reason for logs and the session view, and
 * how many prompt tokens the router expects that replica to hold already (0 when it cannot tell).
 */
public record Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens) {

    public Placement(ReplicaView replica, Decision decision, String reason) {
        this(replica, decision, reason, 0);
    }

    public Placement withExpectedCachedTokens(int tokens) {
        return new Placement(replica, decision, reason, tokens);
    }

    public Placement withDecision(Decision d, String why) {
        return new Placement(replica, d, why, expectedCachedTokens);
    }
}
