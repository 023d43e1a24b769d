package io.lmwarden.router.stats;

import io.lmwarden.router.diagnostics.PrefillRates;
import io.lmwarden.router.diagnostics.PrefixBreakDetector;
import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.diagnostics.TtfbSplit;
import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PrefixIndexes;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * Turns placed and ended requests into meters, the API's counters, the token series, the session
 * log and the three diagnostics (prefix breaks, cache misses, queue eating the gain).
 */
public final class RequestAccounting implements RequestListener {

    /** A miss: the engine reported less than half of what the router expected, and the expectation was worth a look. */
    private static final int MISS_MIN_EXPECTED_TOKENS = 256;

    private final RouterMetrics metrics;
    private final SessionLog sessions;
    private final PrefixIndexes prefixIndexes;
    private final PrefixBreakDetector breaks;
    private final PrefillRates prefillRates;
    private final TokenRates tokenRates;
    private final List<RequestListener> extra = new CopyOnWriteArrayList<>();
    private final LongAdder placed = new LongAdder();
    private final LongAdder sticky = new LongAdder();
    private final LongAdder repeatSteps = new LongAdder();
    private final LongAdder ended = new LongAdder();
    private final LongAdder prefixBreakCount = new LongAdder();
    private final LongAdder cacheMissCount = new LongAdder();
    private final LongAdder queueAteGainCount = new LongAdder();

    public RequestAccounting(RouterMetrics metrics, SessionLog sessions, PrefixIndexes prefixIndexes,
                             PrefixBreakDetector breaks, PrefillRates prefillRates, TokenRates tokenRates) {
        this.metrics = metrics;
        this.sessions = sessions;
        this.prefixIndexes = prefixIndexes;
        this.breaks = breaks;
        this.prefillRates = prefillRates;
        this.tokenRates = tokenRates;
    }

    /** Further listeners told after the accounting. */
    public void add(RequestListener listener) {
        extra.add(listener);
    }

    @Override
    public void placed(RequestFacts facts, Placement placement) {
        placed.increment();
        if (placement.decision() == Decision.STICKY) {
            sticky.increment();
        }
        if (placement.decision() != Decision.NEW) {
            repeatSteps.increment();
        }
        // After its prefill the replica holds this prompt: later placements must know.
        prefixIndexes.of(placement.replica()).insert(facts.shape());
        metrics.request(placement.replica().id(), placement.decision().name(), facts.flavor().path());
        extra.forEach(l -> l.placed(facts, placement));
    }

    @Override
    public void ended(RequestFacts facts, Placement placement, ExchangeOutcome o) {
        ended.increment();
        ReplicaView at = placement.replica();
        String replica = at.id();
        long now = System.currentTimeMillis();
        double ttfbMs = o.ttfbNanos() < 0 ? -1 : o.ttfbNanos() / 1e6;
        double routerMs = o.sentAtNanos() < 0 ? -1 : (o.sentAtNanos() - o.receivedAtNanos()) / 1e6;
        if (ttfbMs >= 0) {
            metrics.ttfb(replica, ttfbMs);
        }
        if (routerMs >= 0) {
            metrics.routerOverhead(routerMs);
        }
        metrics.streamEnded(replica, o.completed());

        boolean ok = o.outcome().equals("ok");
        long prompt = o.promptTokens() >= 0 ? o.promptTokens() : facts.shape().estimatedTokens();
        long cached = Math.min(prompt, Math.max(0, o.cachedTokens()));
        long computed = prompt - cached;
        if (ok) {
            metrics.promptTokens(replica, cached, computed);
            long output = Math.max(0, o.outputTokens());
            metrics.outputTokens(replica, output);
            tokenRates.record(now, cached, computed, output);
        }
        if (placement.movedFrom() != null) {
            metrics.spill(placement.movedFrom(), replica);
        }

        PrefixBreakDetector.Comparison cmp = breaks.compare(facts.sessionKey().value(), facts.shape());
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
            if (metTheEngineIdle(at)) {
                prefillRates.observe(replica, ttfbMs - routerMs, computed);
            }
            split = TtfbSplit.of(ttfbMs, routerMs, computed, cached, prefillRates.msPerToken(replica));
            queueAteGain = split.queueAteGain();
            if (queueAteGain) {
                queueAteGainCount.increment();
                metrics.queueAteGain(replica);
            }
        }

        sessions.record(new StepRecord(now, facts.sessionKey().value(), facts.sessionKey().source().label(), facts.model(),
                facts.flavor().path(), replica, placement.decision().name(), placement.reason(), prompt,
                cmp.sharedPrefixTokens(), cmp.prefixBreak().orElse(null), placement.expectedCachedTokens(), o.cachedTokens(),
                miss, o.outputTokens(), ttfbMs, routerMs, split, queueAteGain, o.status(), o.completed(), o.outcome()));
        extra.forEach(l -> l.ended(facts, placement, o));
    }

    /** At placement the engine had nothing waiting and everything the router had sent there was running. */
    private static boolean metTheEngineIdle(ReplicaView r) {
        return r.metricsFresh() && r.metrics().waiting() == 0 && r.sentSinceScrape() == 0 && r.inFlight() <= r.metrics().running();
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
