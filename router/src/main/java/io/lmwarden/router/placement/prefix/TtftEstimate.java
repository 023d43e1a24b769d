package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.pool.ReplicaView;

/**
 * Expected time to first token of one request on one replica, in the router's wall-clock
 * milliseconds: waiting behind the prefill work already queued there, then prefilling what the
 * replica does not hold.
 */
public record TtftEstimate(ReplicaView replica, int heldTokens, long uncachedTokens, double queueMs, double prefillMs,
                           HeldTokens.Source heldFrom) {

    public TtftEstimate(ReplicaView replica, int heldTokens, long uncachedTokens, double queueMs, double prefillMs) {
        this(replica, heldTokens, uncachedTokens, queueMs, prefillMs, HeldTokens.Source.ESTIMATED);
    }

    public double totalMs() {
        return queueMs + prefillMs;
    }

    public String describe() {
        return String.format("%s: queue %.0f ms + prefill %d tokens %.0f ms (holds %d, %s)", replica.id(), queueMs, uncachedTokens,
                prefillMs, heldTokens, heldFrom == HeldTokens.Source.EVENTS ? "events" : "estimated");
    }
}
