package io.lmwarden.router.stats;

import io.lmwarden.router.diagnostics.LiveWorkingSets;
import io.lmwarden.router.diagnostics.PrefixBreakDetector;
import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.diagnostics.TtfbSplit;
import io.lmwarden.router.placement.reservation.AttemptEnd;
import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.reservation.PlacementFeedback;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.session.RequestFacts;

import io.lmwarden.router.placement.prefix.HeldTokens;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Turns placed and ended requests into meters, the API's counters, the token series, the session
 * log and the three diagnostics (prefix breaks, cache misses, queue eating the gain). It listens on
 * the placement feedback seam after placement's own learning and only counts: it writes no
 * placement state (the prefill rates it reads were learned before it is told).
 */
public final class RequestAccounting implements PlacementFeedback {

    /** A miss: the engine reported less than half of what the router expected, and the expectation was worth a look. */
    private static final int MISS_MIN_EXPECTED_TOKENS = 256;

    private final RouterMetrics metrics;
    private final SessionLog sessions;
    private final PrefixBreakDetector breaks;
    private final PrefillRates prefillRates;
    private final TokenRates tokenRates;
    private final LiveWorkingSets workingSets;
    /** What each request looked like when it arrived, until its last attempt ends; keyed by the request itself. */
    private final Map<RequestFacts, Arrival> arrivals = Collections.synchronizedMap(new IdentityHashMap<>());
    private final LongAdder placed = new LongAdder();
    private final LongAdder sticky = new LongAdder();
    private final LongAdder repeatSteps = new LongAdder();
    private final LongAdder ended = new LongAdder();
    private final LongAdder prefixBreakCount = new LongAdder();
    private final LongAdder cacheMissCount = new LongAdder();
    private final LongAdder queueAteGainCount = new LongAdder();

    /** A step at its arrival: when, and how it relates to the earlier steps of its session. */
    private record Arrival(long epochMillis, PrefixBreakDetector.Comparison comparison) {
    }

    public RequestAccounting(RouterMetrics metrics, SessionLog sessions, PrefixBreakDetector breaks, PrefillRates prefillRates,
                             TokenRates tokenRates, LiveWorkingSets workingSets) {
        this.metrics = metrics;
        this.sessions = sessions;
        this.breaks = breaks;
        this.prefillRates = prefillRates;
        this.tokenRates = tokenRates;
        this.workingSets = workingSets;
    }

    @Override
    public void placed(Reservation r) {
        Placement placement = r.placement();
        RequestFacts facts = r.facts();
        if (!placement.replica().metricsFresh()) {
            metrics.staleMetricsFallback(placement.replica().id());
        }
        if (r.attempt() == 1) {
            // Compared in arrival order: concurrent steps end in any order, and a step continues the one it re-sends.
            long arrivedAt = System.currentTimeMillis() - (System.nanoTime() - r.receivedAtNanos()) / 1_000_000;
            String key = facts.sessionKey().value();
            arrivals.put(facts, new Arrival(arrivedAt, breaks.compare(key, facts.shape(), facts.promptText())));
            // The text served the comparison; a request that streams for minutes need not hold it.
            facts.promptText().release();
            workingSets.record(key, facts.shape(), arrivedAt);
        }
        placed.increment();
        if (placement.decision() == Decision.STICKY) {
            sticky.increment();
        }
        if (placement.decision() != Decision.NEW) {
            repeatSteps.increment();
        }
        metrics.request(placement.replica().id(), placement.decision().name(), facts.dialect().path());
    }

    @Override
    public void ended(Reservation r, AttemptEnd o) {
        if (o.retried()) {
            // The request goes on elsewhere: its step is recorded once, by the attempt that answers.
            return;
        }
        RequestFacts facts = r.facts();
        Placement placement = r.placement();
        Arrival arrival = arrivals.remove(facts);
        if (arrival == null) {
            return;
        }
        ended.increment();
        String replica = placement.replica().id();
        long now = System.currentTimeMillis();
        double ttfbMs = r.firstByteNanos() < 0 ? -1 : (r.firstByteNanos() - r.receivedAtNanos()) / 1e6;
        double routerMs = r.sentAtNanos() < 0 ? -1 : (r.sentAtNanos() - r.receivedAtNanos()) / 1e6;
        if (ttfbMs >= 0) {
            metrics.ttfb(replica, ttfbMs);
        }
        if (routerMs >= 0) {
            metrics.routerOverhead(routerMs);
        }
        metrics.streamEnded(replica, o.completed());

        boolean ok = o.ok();
        long prompt = o.promptTokens() >= 0 ? o.promptTokens() : facts.shape().estimatedTokens();
        long cached = Math.min(prompt, Math.max(0, o.cachedTokens()));
        long computed = prompt - cached;
        if (ok) {
            metrics.promptTokens(replica, cached, computed);
            long output = Math.max(0, o.outputTokens());
            metrics.outputTokens(replica, output);
            tokenRates.record(now, cached, computed, output);
        }
        // A drain's move is no spill: it is counted as decision DRAIN.
        if (placement.movedFrom() != null && placement.decision() != Decision.DRAIN) {
            metrics.spill(placement.movedFrom(), replica);
        }

        PrefixBreakDetector.Comparison cmp = arrival.comparison();
        cmp.prefixBreak().ifPresent(b -> {
            prefixBreakCount.increment();
            metrics.prefixBreak(b.segment().startsWith("message") ? "message" : b.segment());
        });

        boolean miss = ok && o.cachedTokens() >= 0 && placement.expectedCachedTokens() >= MISS_MIN_EXPECTED_TOKENS
                && o.cachedTokens() < placement.expectedCachedTokens() / 2;
        if (miss) {
            cacheMissCount.increment();
            metrics.cacheMiss(replica);
        }

        TtfbSplit split = null;
        boolean queueAteGain = false;
        if (ok && ttfbMs >= 0 && routerMs >= 0) {
            split = TtfbSplit.of(ttfbMs, routerMs, computed, cached, prefillRates.msPerToken(replica));
            queueAteGain = split.queueAteGain();
            if (queueAteGain) {
                queueAteGainCount.increment();
                metrics.queueAteGain(replica);
            }
        }

        sessions.record(new SessionStep(arrival.epochMillis(), facts.sessionKey().value(), facts.sessionKey().source().label(),
                facts.model(), facts.dialect().path(), cmp.sideRequest(),
                new SessionStep.Placed(replica, placement.decision().name(), placement.reason(), placement.movedFrom()),
                new SessionStep.Cache(prompt, cmp.sharedPrefixTokens(), cmp.prefixBreak().orElse(null), placement.expectedCachedTokens(),
                        r.heldAtPlacement().source() == HeldTokens.Source.EVENTS ? "events" : "estimated", o.cachedTokens(), miss,
                        r.heldAtPlacement().firstMissEvictedAtMillis()),
                new SessionStep.Timing(ttfbMs, routerMs, split, queueAteGain),
                new SessionStep.Result(o.outputTokens(), o.status(), o.completed(), o.outcome())));
    }

    /** Share of placed requests that stayed on their home replica, among those that were not new sessions. */
    public double stickyPercent() {
        long n = repeatSteps.sum();
        return n == 0 ? 0 : 100.0 * sticky.sum() / n;
    }

    public long placedRequests() {
        return placed.sum();
    }

    public long endedRequests() {
        return ended.sum();
    }

    public long prefixBreaks() {
        return prefixBreakCount.sum();
    }

    public long cacheMisses() {
        return cacheMissCount.sum();
    }

    public long queueAteGain() {
        return queueAteGainCount.sum();
    }
}
