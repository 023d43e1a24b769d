package io.lmwarden.router.placement;

import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Expected-TTFT placement. A session stays on its home replica unless another replica would give
 * its next step a first token sooner by a clear margin (hysteresis: equal replicas never trade a
 * session back and forth); then it moves and is re-pinned there. A new session, or a request with no
 * session of its own, goes where its expected TTFT is lowest, which is where its prefix (a shared
 * system prompt, say) is already warm, unless a less busy replica is nearly as fast. The spill
 * threshold stays a hard cap on the home replica's in-flight requests.
 */
public final class CostPolicy implements PlacementPolicy {

    public static final String NAME = "cost";
    /** Moving must win by this share of the home's estimate… */
    static final double RELATIVE_MARGIN = 0.25;
    /** …and by at least this much engine time, so noise in small estimates does not move sessions. */
    static final double ABSOLUTE_MARGIN_ENGINE_MS = 250;

    private final AffinityTable table;
    private final SpillThreshold spillThreshold;
    private final int maxNumSeqs;
    private final TtftEstimator estimator;
    private final double absoluteMarginMs;

    /**
     * @param timeScale engines that run K times faster than real time (a simulator) shrink the absolute margin K times
     */
    public CostPolicy(AffinityTable table, SpillThreshold spillThreshold, int maxNumSeqs, TtftEstimator estimator, double timeScale) {
        this.table = table;
        this.spillThreshold = spillThreshold;
        this.maxNumSeqs = maxNumSeqs;
        this.estimator = estimator;
        this.absoluteMarginMs = ABSOLUTE_MARGIN_ENGINE_MS / timeScale;
    }

    @Override
    public String name() {
        return NAME;
    }

    public int threshold() {
        return spillThreshold.resolve(maxNumSeqs);
    }

    double margin(double homeMs) {
        return Math.max(absoluteMarginMs, RELATIVE_MARGIN * homeMs);
    }

    @Override
    public Placement place(PlacementRequest request) {
        RequestFacts f = request.facts();
        String key = f.sessionKey().value();
        List<TtftEstimate> estimates = new ArrayList<>(request.candidates().size());
        for (ReplicaView r : request.candidates()) {
            estimates.add(estimator.estimate(r, f.shape()));
        }
        Optional<String> home = table.lookup(f.model(), key, request.nowNanos());
        Optional<TtftEstimate> homeEstimate = home.flatMap(h -> estimates.stream().filter(e -> e.replica().id().equals(h)).findFirst());
        if (homeEstimate.isEmpty()) {
            TtftEstimate target = bestForNewSession(estimates);
            table.pin(f.model(), key, target.replica().id(), request.nowNanos());
            String why = home.isPresent() ? "home " + home.get() + " unavailable → " : "new → ";
            return placement(target, Decision.NEW, why + "lowest expected TTFT " + target.describe());
        }
        TtftEstimate h = homeEstimate.get();
        List<TtftEstimate> others = estimates.stream().filter(e -> e != h).toList();
        if (others.isEmpty()) {
            return placement(h, Decision.STICKY, "only replica; " + h.describe());
        }
        TtftEstimate best = others.stream().min((a, b) -> Double.compare(a.totalMs(), b.totalMs())).get();
        int threshold = threshold();
        if (h.replica().inFlight() >= threshold && best.replica().inFlight() < h.replica().inFlight()) {
            table.pin(f.model(), key, best.replica().id(), request.nowNanos());
            return placement(best, Decision.SPILL, "home " + h.replica().id() + " has " + h.replica().inFlight()
                    + " in flight (spill threshold " + threshold + ") → " + best.describe());
        }
        if (best.totalMs() < h.totalMs() - margin(h.totalMs())) {
            table.pin(f.model(), key, best.replica().id(), request.nowNanos());
            return placement(best, Decision.SPILL, String.format("home %s expected %.0f ms > %s expected %.0f ms; moved",
                    h.replica().id(), h.totalMs(), best.replica().id(), best.totalMs()));
        }
        return placement(h, Decision.STICKY, String.format("home expected %.0f ms, best elsewhere %.0f ms (%s)",
                h.totalMs(), best.totalMs(), best.replica().id()));
    }

    /** Lowest expected TTFT; among those within the margin of it, the least loaded, so sessions spread. */
    private TtftEstimate bestForNewSession(List<TtftEstimate> estimates) {
        double min = estimates.stream().mapToDouble(TtftEstimate::totalMs).min().orElse(0);
        double margin = margin(min);
        List<ReplicaView> nearBest = estimates.stream().filter(e -> e.totalMs() <= min + margin).map(TtftEstimate::replica).toList();
        ReplicaView chosen = LoadOrder.least(nearBest, LoadOrder.FOR_NEW_SESSION);
        return estimates.stream().filter(e -> e.replica() == chosen).findFirst().orElseThrow();
    }

    private static Placement placement(TtftEstimate e, Decision d, String why) {
        return new Placement(e.replica(), d, why, e.heldTokens());
    }
}
