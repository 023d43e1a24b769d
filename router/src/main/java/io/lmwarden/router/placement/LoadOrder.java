package io.lmwarden.router.placement;

import io.lmwarden.router.pool.ReplicaView;

import java.util.Comparator;
import java.util.List;

/** Orderings of replicas by load, shared by the policies. */
public final class LoadOrder {

    private LoadOrder() {
    }

    /** vLLM's balancer: lowest {@code waiting*4 + running}; ties to the lowest index (id order). */
    public static final Comparator<ReplicaView> QUEUE_SCORE = Comparator.comparingDouble(ReplicaView::queueScore);

    /**
     * For a new session: the engine queue first, then the router's own in-flight count, then pinned
     * sessions (so a burst of new sessions spreads before any of them has reached an engine), then KV use.
     */
    public static final Comparator<ReplicaView> FOR_NEW_SESSION = QUEUE_SCORE
            .thenComparingInt(ReplicaView::inFlight)
            .thenComparingInt(ReplicaView::stickySessions)
            .thenComparingDouble(ReplicaView::kvCacheUsage);

    /** The least loaded by the ordering; stable, so equal replicas resolve to the first in id order. */
    public static ReplicaView least(List<ReplicaView> replicas, Comparator<ReplicaView> order) {
        ReplicaView best = null;
        for (ReplicaView r : replicas) {
            if (best == null || order.compare(r, best) < 0) {
                best = r;
            }
        }
        return best;
    }

    public static String describe(ReplicaView r) {
        // Concatenation, not String.format: this is in every new session's placement reason.
        return r.metricsFresh()
                ? "waiting=" + Math.round(r.metrics().waiting()) + " running=" + Math.round(r.metrics().running())
                + " pending=" + r.sentSinceScrape() + " inFlight=" + r.inFlight()
                : "inFlight=" + r.inFlight() + " (engine metrics stale)";
    }
}
