package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.pool.ReplicaView;

/**
 * Expected time to first token of one request on one replica, in the router's wall-clock
 * milliseconds: waiting behind the prefill work already queued there, then loading what its host-memory KV tier holds
 * and prefilling what the replica does not hold.
 *
 * @param heldTokens   tokens the replica need not compute: in its GPU cache, or loaded from its host tier
 * @param loadedTokens of those, the ones loaded from the host tier
 * @param loadMs       the time that load takes at the tier's bandwidth
 * @param heldFrom     whether {@code heldTokens} came from the engine's KV events or the router's estimate
 */
public record TtftEstimate(ReplicaView replica, int heldTokens, long uncachedTokens, double queueMs, double prefillMs, int loadedTokens,
                           double loadMs, HeldTokens.Source heldFrom) {

    /** A replica without a host tier, held tokens from the router's estimate. */
    public TtftEstimate(ReplicaView replica, int heldTokens, long uncachedTokens, double queueMs, double prefillMs) {
        this(replica, heldTokens, uncachedTokens, queueMs, prefillMs, 0, 0, HeldTokens.Source.ESTIMATED);
    }

    public double totalMs() {
        return queueMs + loadMs + prefillMs;
    }

    public String describe() {
        String load = loadedTokens == 0 ? "" : String.format(" + load %d tokens from host %.0f ms", loadedTokens, loadMs);
        return String.format("%s: queue %.0f ms%s + prefill %d tokens %.0f ms (holds %d, %s)", replica.id(), queueMs, load,
                uncachedTokens, prefillMs, heldTokens, heldFrom == HeldTokens.Source.EVENTS ? "events" : "estimated");
    }
}
