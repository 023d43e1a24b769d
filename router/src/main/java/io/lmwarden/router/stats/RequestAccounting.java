package io.lmwarden.router.stats;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/** Turns placed and ended requests into meters, counters for the API, and the session log. */
public final class RequestAccounting implements RequestListener {

    private final RouterMetrics metrics;
    private final SessionLog sessions;
    private final List<RequestListener> extra = new CopyOnWriteArrayList<>();
    private final LongAdder placed = new LongAdder();
    private final LongAdder sticky = new LongAdder();
    private final LongAdder repeatSteps = new LongAdder();

    public RequestAccounting(RouterMetrics metrics, SessionLog sessions) {
        this.metrics = metrics;
        this.sessions = sessions;
    }

    /** Further listeners (diagnostics, UI series) told after the accounting. */
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
        metrics.request(placement.replica().id(), placement.decision().name(), facts.flavor().path());
        extra.forEach(l -> l.placed(facts, placement));
    }

    @Override
    public void ended(RequestFacts facts, Placement placement, ExchangeOutcome o) {
        String replica = placement.replica().id();
        if (o.ttfbNanos() >= 0) {
            metrics.ttfb(replica, o.ttfbNanos() / 1e6);
        }
        if (o.sentAtNanos() > 0) {
            metrics.routerOverhead((o.sentAtNanos() - o.receivedAtNanos()) / 1e6);
        }
        metrics.streamEnded(replica, o.completed());
        if (o.outcome().equals("ok")) {
            long prompt = o.promptTokens() >= 0 ? o.promptTokens() : facts.shape().estimatedTokens();
            long cached = Math.max(0, o.cachedTokens());
            metrics.promptTokens(replica, Math.min(cached, prompt), Math.max(0, prompt - cached));
            if (o.outputTokens() > 0) {
                metrics.outputTokens(replica, o.outputTokens());
            }
        }
        if (placement.decision() == Decision.SPILL) {
            metrics.spill(placement.reason().replaceAll("^home (\\S+).*", "$1"), replica);
        }
        sessions.record(new StepRecord(System.currentTimeMillis(), facts.sessionKey().value(),
                facts.sessionKey().source().label(), facts.model(), facts.flavor().path(), replica, placement.decision().name(),
                placement.reason(), facts.shape().estimatedTokens(), 0, placement.expectedCachedTokens(), o.cachedTokens(),
                o.outputTokens(), o.ttfbNanos() < 0 ? -1 : o.ttfbNanos() / 1e6,
                o.sentAtNanos() < 0 ? -1 : (o.sentAtNanos() - o.receivedAtNanos()) / 1e6, o.status(), o.completed(), o.outcome()));
        extra.forEach(l -> l.ended(facts, placement, o));
    }

    /** Share of placed requests that stayed on their home replica, among those that were not new sessions. */
    public double stickyPercent() {
        long n = repeatSteps.sum();
        return n == 0 ? 0 : 100.0 * sticky.sum() / n;
    }

    public long placedRequests() {
        return placed.sum();
    }
}
