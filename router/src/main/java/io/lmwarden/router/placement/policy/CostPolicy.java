package io.lmwarden.router.placement.policy;

import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.placement.prefix.TtftEstimate;
import io.lmwarden.router.placement.prefix.TtftEstimator;
import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Expected-TTFT placement. For each replica: {@code T = queue + prefill of what it does not hold}
 * ({@link TtftEstimator}). A session stays on its home replica unless leaving wins even after the
 * recompute it causes is counted twice, once for this request and once for those that queue behind
 * it on the target: move iff {@code queue(home) − queue(r) > 2·(prefill(r) − prefill(home)) + margin}.
 * So a home that still holds the session's prefix is left only for a queue much longer than the
 * recompute, a home that lost it (evicted) is left for any clearly shorter queue, and equal replicas
 * never trade a session back and forth. A move re-pins the session ({@code SPILL}). A new session,
 * or a request without a session of its own (through its fingerprint), goes among the replicas whose
 * expected TTFT is near the lowest (where its prefix, a shared system prompt, is warm) to the least
 * loaded. The spill threshold stays a hard cap on the home replica's in-flight requests.
 */
public final class CostPolicy implements PlacementPolicy {

    public static final String NAME = "cost";
    /**
     * Recompute a move causes is counted this many times: once for this request's own first token,
     * once more for the requests that will queue behind that extra prefill on the target (and the
     * prefixes of other sessions it evicts there). Without it, greedy moves under load trade cache
     * hits for a little less queue and raise everyone's median.
     */
    static final double RECOMPUTE_WEIGHT = 2.0;
    /** A home holding at least this share of the prompt keeps its session by the cost rule; below it, by queue length. */
    static final double WARM_SHARE = 0.5;
    /** A cold home is left for a strictly shorter queue (scores are whole requests), never for a tie. */
    static final double COLD_MOVE_MIN_SCORE_GAP = 1;
    /** A move must win by at least this much engine time, so noise in small estimates never moves sessions. */
    static final double ABSOLUTE_MARGIN_ENGINE_MS = 250;
    /** New sessions spread over replicas whose expected TTFT is within this share (and 250 ms) of the best. */
    static final double NEW_SESSION_RELATIVE_MARGIN = 0.25;
    static final double NEW_SESSION_ABSOLUTE_MARGIN_ENGINE_MS = 250;

    private final SessionHomes homes;
    private final int threshold;
    private final TtftEstimator estimator;
    private final double timeScale;

    /**
     * @param timeScale engines that run K times faster than real time (a simulator) shrink the absolute margin K times
     */
    public CostPolicy(SessionHomes homes, SpillThreshold spillThreshold, int maxNumSeqs, TtftEstimator estimator, double timeScale) {
        this.homes = homes;
        this.threshold = spillThreshold.resolve(maxNumSeqs);
        this.estimator = estimator;
        this.timeScale = timeScale;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean pinsSessions() {
        return true;
    }

    @Override
    public OptionalInt spillThreshold() {
        return OptionalInt.of(threshold);
    }

    /** A home that still holds a good part of the prompt. */
    static boolean warm(TtftEstimate home) {
        return home.heldTokens() >= WARM_SHARE * (home.heldTokens() + home.uncachedTokens());
    }

    /** Queue plus recompute, the recompute weighted for the harm it does to the requests behind it. */
    static double moveCost(TtftEstimate e) {
        return e.queueMs() + e.loadMs() + RECOMPUTE_WEIGHT * e.prefillMs();
    }

    @Override
    public Placement place(PlacementRequest request) {
        RequestFacts f = request.facts();
        List<TtftEstimate> estimates = new ArrayList<>(request.candidates().size());
        for (ReplicaView r : request.candidates()) {
            estimates.add(estimator.estimate(r, f.shape()));
        }
        SessionHomes.Step step = homes.step(request, threshold, new SessionHomes.Choices() {
            @Override
            public Placement forNewSession(List<ReplicaView> candidates, String why) {
                TtftEstimate target = bestForNewSession(estimates, candidates);
                return placement(target, Decision.NEW, why + " → lowest expected TTFT " + target.describe());
            }

            @Override
            public ReplicaView overCapTarget(ReplicaView home, List<ReplicaView> others) {
                return estimates.stream().filter(e -> others.contains(e.replica()))
                        .min((a, b) -> Double.compare(moveCost(a), moveCost(b))).orElseThrow().replica();
            }

            @Override
            public int expectedCachedTokens(ReplicaView r) {
                return estimateOf(estimates, r).heldTokens();
            }
        });
        if (step.decided().isPresent()) {
            return step.decided().get();
        }
        TtftEstimate h = estimateOf(estimates, step.home());
        if (step.others().isEmpty()) {
            return placement(h, Decision.STICKY, "only replica; " + h.describe());
        }
        TtftEstimate best = cheapestMove(estimates, step.home());
        if (!warm(h)) {
            // The home lost the prefix (evicted, as under overload): nothing holds the session there, so
            // the step goes where the engine queue is shortest, vLLM's own rule, staying home on a tie.
            ReplicaView shortest = LoadOrder.least(request.candidates(), LoadOrder.QUEUE_SCORE);
            if (shortest != h.replica() && shortest.queueScore() + COLD_MOVE_MIN_SCORE_GAP <= h.replica().queueScore()) {
                TtftEstimate target = estimateOf(estimates, shortest);
                return homes.move(request, h.replica(), placement(target, Decision.SPILL, "moved: home " + h.replica().id() + " holds "
                        + h.heldTokens() + " of " + (h.heldTokens() + h.uncachedTokens()) + " tokens; shortest queue "
                        + LoadOrder.describe(shortest)));
            }
            return placement(h, Decision.STICKY, "home holds little of the prompt but has the shortest queue: "
                    + LoadOrder.describe(h.replica()));
        }
        // Stay unless the queue skipped is longer than the recompute caused, counted twice: hysteresis.
        if (moveCost(best) < moveCost(h) - ABSOLUTE_MARGIN_ENGINE_MS / timeScale) {
            return homes.move(request, h.replica(), placement(best, Decision.SPILL, String.format("moved: home %s expected %.0f ms"
                            + " (queue %.0f), %s expected %.0f ms (queue %.0f, recompute %d tokens)", h.replica().id(), h.totalMs(),
                    h.queueMs(), best.replica().id(), best.totalMs(), best.queueMs(), best.uncachedTokens())));
        }
        return placement(h, Decision.STICKY, String.format("home expected %.0f ms; moving to %s would cost %.0f ms with recompute",
                h.totalMs(), best.replica().id(), moveCost(best)));
    }

    /** The other replica where moving costs least: queue plus the recompute, weighted. */
    private static TtftEstimate cheapestMove(List<TtftEstimate> estimates, ReplicaView home) {
        return estimates.stream().filter(e -> e.replica() != home).min((a, b) -> Double.compare(moveCost(a), moveCost(b))).orElseThrow();
    }

    private static TtftEstimate estimateOf(List<TtftEstimate> estimates, ReplicaView r) {
        return estimates.stream().filter(e -> e.replica() == r).findFirst().orElseThrow();
    }

    /** Among the candidates, lowest expected TTFT; among those within the margin of it, the least loaded, so sessions spread. */
    private TtftEstimate bestForNewSession(List<TtftEstimate> all, List<ReplicaView> candidates) {
        List<TtftEstimate> estimates = all.stream().filter(e -> candidates.contains(e.replica())).toList();
        double min = estimates.stream().mapToDouble(TtftEstimate::totalMs).min().orElse(0);
        double margin = Math.max(NEW_SESSION_ABSOLUTE_MARGIN_ENGINE_MS / timeScale, NEW_SESSION_RELATIVE_MARGIN * min);
        List<ReplicaView> nearBest = estimates.stream().filter(e -> e.totalMs() <= min + margin).map(TtftEstimate::replica).toList();
        ReplicaView chosen = LoadOrder.least(nearBest, LoadOrder.FOR_NEW_SESSION);
        return estimates.stream().filter(e -> e.replica() == chosen).findFirst().orElseThrow();
    }

    private static Placement placement(TtftEstimate e, Decision d, String why) {
        return new Placement(e.replica(), d, why, e.heldTokens());
    }
}
