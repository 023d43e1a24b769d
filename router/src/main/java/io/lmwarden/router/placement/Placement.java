package io.lmwarden.router.placement;

import io.lmwarden.router.pool.ReplicaView;

import java.util.concurrent.CompletionStage;

/**
 * A policy's answer: the replica, the decision, a short reason for logs and the session view, how
 * many prompt tokens the router expects that replica to hold already (0 when it cannot tell), for
 * a session moved off its home, that home (null otherwise), and whether the endpoint's own balancer picks
 * the engine (no {@code X-data-parallel-rank} is sent: the {@code passthrough} policy), and, for a new session whose pin
 * the cluster has not confirmed yet, the pin that holds once it has ({@code pendingClaim}, null otherwise): the step
 * waits for it, off the event loop, and is placed again when another router's pin won.
 */
public record Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens, String movedFrom,
                        boolean engineBalances, CompletionStage<String> pendingClaim) {

    public Placement(ReplicaView replica, Decision decision, String reason, int expectedCachedTokens, String movedFrom,
                     boolean engineBalances) {
        this(replica, decision, reason, expectedCachedTokens, movedFrom, engineBalances, null);
    }

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
        return new Placement(replica, decision, reason, expectedCachedTokens, home, engineBalances, pendingClaim);
    }

    public Placement withExpectedCachedTokens(int tokens) {
        return new Placement(replica, decision, reason, tokens, movedFrom, engineBalances, pendingClaim);
    }

    public Placement withDecision(Decision d, String why) {
        return new Placement(replica, d, why, expectedCachedTokens, movedFrom, engineBalances, pendingClaim);
    }

    /** The same endpoint, but its own balancer picks the engine rank. */
    public Placement leavingRankToEngine() {
        return new Placement(replica, decision, reason, expectedCachedTokens, movedFrom, true, pendingClaim);
    }

    /** The same placement, to be confirmed by the cluster: {@code winner} completes with the pin that holds. */
    public Placement claimPending(CompletionStage<String> winner) {
        return new Placement(replica, decision, reason, expectedCachedTokens, movedFrom, engineBalances, winner);
    }

    /** The same placement, its pin confirmed. */
    public Placement claimSettled() {
        return new Placement(replica, decision, reason, expectedCachedTokens, movedFrom, engineBalances, null);
    }
}
