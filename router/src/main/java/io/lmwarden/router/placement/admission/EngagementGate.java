package io.lmwarden.router.placement.admission;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.ReplicaView;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Whether the KV budget applies: admission is on, the pool thrashes ({@link ThrashSignal}: the evidence) and holding
 * residents through their pauses pays (the pool's median pause well inside the replicas' break-even). It keeps the one
 * break-even table, per replica as of its last look, that the evidence, this gate and the revocations read, and it is
 * what the API and the log report as "engaged". In a cluster the pool's median pause and the break-even are the
 * cluster's ({@link AdmissionEvidence}: the routers' pause estimates weighed by the pauses behind them, the longest
 * break-even any computed), as the evidence is, so that every router takes the same decision. Not thread-safe: the
 * controller's lock guards it.
 */
final class EngagementGate {

    private static final Logger LOG = Logger.getLogger(EngagementGate.class.getName());

    /** An engine whose KV cache is this full of running requests, with requests waiting, thrashes. */
    static final double KV_FULL = 0.95;
    /**
     * The budget applies only while the pool's median pause is shorter than the break-even divided by this: holding a
     * resident through a pause as long as the break-even saves nothing, and costs what the break-even leaves out — a
     * paused resident's reserved KV runs no sequence, so the engines batch fewer. With pauses about as long as the
     * break-even (10 s on the reference replica) engaged admission lost 13 % of tokens/min to affinity at 16–48
     * sessions (busy 3.7 of 4); with pauses of a fifth of it, it won 28–35 %.
     */
    static final long HOLDING_PAYS_SHARE_OF_BREAK_EVEN = 2;

    private final Supplier<AdmissionRules> rules;
    private final ThrashSignal thrash;
    private final ReturnTimes returnTimes;
    private final ResidencyTable residencies;
    private final PrefillRates prefillRates;
    private final PeerEvidence peers;
    private final Map<String, Long> breakEvens = new HashMap<>();
    private final TierLoads tierLoads = new TierLoads();
    /** What the log said last: it speaks when the budget starts or stops applying. */
    private boolean applied;

    EngagementGate(Supplier<AdmissionRules> rules, ThrashSignal thrash, ReturnTimes returnTimes, ResidencyTable residencies,
                   PrefillRates prefillRates, PeerEvidence peers) {
        this.peers = peers;
        this.rules = rules;
        this.thrash = thrash;
        this.returnTimes = returnTimes;
        this.residencies = residencies;
        this.prefillRates = prefillRates;
    }

    /** The pump's look at a ready replica: its break-even now, and whether its engine is full with requests waiting. */
    void look(ReplicaView r, long now) {
        breakEvens.put(r.id(), computeBreakEven(r));
        tierLoads.look(r, prefillMsPerToken(r) * rules.get().timeScale());
        if (r.metricsFresh() && r.metrics() != null && r.kvCacheUsage() >= KV_FULL && r.metrics().waiting() > 0) {
            thrash.kvFullWithQueue(now);
        }
    }

    /** The replica's break-even as of its last look (computed now if it has had none). */
    long breakEvenNanos(ReplicaView r) {
        return breakEvens.computeIfAbsent(r.id(), id -> computeBreakEven(r));
    }

    void forget(String replica) {
        breakEvens.remove(replica);
        tierLoads.forget(replica);
    }

    /**
     * How long holding a session's KV on the replica costs what recomputing it does: holding a working set of W blocks
     * for d takes W/B of the replica's budget B for d, recomputing it takes W blocks' prefill; under pressure a share of
     * the KV budget is that share of the replica's throughput, so the two are equal at d = prefill time of the whole
     * budget, whatever the session's size. The prefill time is the engine's own cost of a token, uncontended: the
     * learned rate or the configured one, whichever is lower. The learned rate is prefill as a request experiences it,
     * sharing each engine step with the decodes of everything running; under load it grows to several times the
     * engine's cost and the break-even with it, holding residents through pauses that recomputing would cost far less
     * than (10 s pauses on the reference replica: admission engaged and lost 13 % to affinity).
     */
    private long computeBreakEven(ReplicaView r) {
        // The replica's whole budget, not what the other routers' residents leave of it to this one: alone the two are
        // the same; in a cluster a router whose peers hold most of the budget would find holding never pays.
        double tokens = (double) residencies.budgetBlocks(r) * PrefixIndexes.TOKENS_PER_BLOCK;
        return Math.max(1, (long) (prefillMsPerToken(r) * tokens * 1e6));
    }

    /** The engine's own cost of prefilling a token, uncontended, in wall ms: the learned rate or the prior, the lower. */
    private double prefillMsPerToken(ReplicaView r) {
        return Math.min(prefillRates.msPerToken(r.id()), prefillRates.prior());
    }

    /**
     * The engine served a step of the session on {@code replica}; only misses admission could have saved are evidence:
     * after a pause shorter than the break-even, by a session that residency by cost would have kept (likely to return
     * within the break-even). What the step paid counts the share of its cached tokens the replica's host tier loaded
     * at their load cost ({@link TierLoads}).
     */
    void served(String session, String replica, long promptTokens, long cachedTokens, long outputTokens, long now) {
        long breakEven = breakEvens.getOrDefault(replica, 0L);
        long pause = returnTimes.lastPauseNanos(session);
        boolean heldThrough = breakEven > 0 && pause >= 0 && pause < breakEven
                && returnTimes.returnChance(session, 0, breakEven) >= Victims.PRESSURE_RETURN_CHANCE;
        thrash.served(session, replica, promptTokens, cachedTokens, outputTokens, heldThrough, tierLoads.of(replica), now);
        appliesAt(now);
    }

    /** Engaged admission found no room for a request: the pressure that keeps the evidence engaged. */
    void noRoom(long now) {
        thrash.noRoom(now);
    }

    /** Whether the KV budget applies now: admission on, the pool thrashing, holding paying (or set to apply always). */
    boolean appliesAt(long now) {
        boolean applies = rules.get().enabled() && engagedAt(now);
        if (applies != applied) {
            applied = applies;
            if (applies) {
                LogFields.info(LOG, "admission engaged: the KV budget applies", "medianPauseSeconds", seconds(poolMedianPauseNanos()),
                        "breakEvenSeconds", seconds(clusterBreakEven()), "always", rules.get().alwaysEngaged());
            } else {
                LogFields.info(LOG, "admission released: the KV budget no longer applies", "enabled", rules.get().enabled(),
                        "thrashing", thrash.engaged(now));
            }
        }
        return applies;
    }

    /** The evidence says thrashing and holding residents pays (or admission is set to apply always), whether on or not. */
    private boolean engagedAt(long now) {
        if (!thrash.engaged(now)) {
            return false;
        }
        if (rules.get().alwaysEngaged()) {
            return true;
        }
        return poolMedianPauseNanos() * HOLDING_PAYS_SHARE_OF_BREAK_EVEN < clusterBreakEven();
    }

    /** The pool's median pause as the cluster learned it (alone: as this router did). */
    private double poolMedianPauseNanos() {
        List<AdmissionEvidence> others = peers.reports();
        return others.isEmpty() ? returnTimes.poolMedianPauseNanos()
                : Math.exp(AdmissionEvidence.lnPauseMean(returnTimes.poolWeight(), returnTimes.poolLnMean(), others));
    }

    /** The longest break-even this router or a peer computed. */
    private long clusterBreakEven() {
        return AdmissionEvidence.breakEven(longestBreakEven(), peers.reports());
    }

    /** This router's evidence, pause estimate and break-even, for its peers. */
    AdmissionEvidence evidence() {
        AdmissionEvidence e = thrash.evidence();
        return new AdmissionEvidence(e.samples(), e.missRate(), e.evidenceSteps(), e.missedSteps(), e.lastKvFullEpochNanos(),
                e.lastNoRoomEpochNanos(), returnTimes.poolWeight(), returnTimes.poolLnMean(), longestBreakEven());
    }

    private long longestBreakEven() {
        long longest = 0;
        for (long b : breakEvens.values()) {
            longest = Math.max(longest, b);
        }
        return longest;
    }

    /**
     * For the API: {@code engaged}, whether the budget applies (what the log reports); {@code thrashing}, the evidence's
     * own state; {@code holdingPays}, whether the pool's median pause is inside the break-even; and the evidence counted.
     */
    Map<String, Object> state(long now) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engaged", appliesAt(now));
        Map<String, Object> evidence = thrash.state(now);
        m.put("thrashing", evidence.get("engaged"));
        double median = poolMedianPauseNanos();
        long breakEven = clusterBreakEven();
        m.put("holdingPays", rules.get().alwaysEngaged() || median * HOLDING_PAYS_SHARE_OF_BREAK_EVEN < breakEven);
        m.put("medianPauseSeconds", seconds(median));
        m.put("breakEvenSeconds", seconds(breakEven));
        evidence.forEach((k, v) -> {
            if (!k.equals("engaged")) {
                m.put(k, v);
            }
        });
        return m;
    }

    private static double seconds(double nanos) {
        return Math.round(nanos / 1e7) / 100.0;
    }
}
