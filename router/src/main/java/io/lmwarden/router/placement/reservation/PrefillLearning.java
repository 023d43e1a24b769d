package io.lmwarden.router.placement.reservation;

import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.pool.ReplicaView;

/**
 * Learns each replica's prefill speed from requests that finished well and met an idle engine: for
 * them, first byte minus sent is prefill of the tokens the engine computed, not waiting.
 */
final class PrefillLearning implements PlacementFeedback {

    private final PrefillRates rates;

    PrefillLearning(PrefillRates rates) {
        this.rates = rates;
    }

    @Override
    public void ended(Reservation r, AttemptEnd end) {
        if (!end.ok() || !r.accepted() || r.sentAtNanos() < 0 || !metTheEngineIdle(r.placement().replica())) {
            return;
        }
        long prompt = end.promptTokens() >= 0 ? end.promptTokens() : r.facts().shape().estimatedTokens();
        long computed = prompt - Math.min(prompt, Math.max(0, end.cachedTokens()));
        rates.observe(r.replicaId(), (r.firstByteNanos() - r.sentAtNanos()) / 1e6, computed);
    }

    /** At placement the engine had nothing waiting and everything the router had sent there was running. */
    static boolean metTheEngineIdle(ReplicaView r) {
        return r.metricsFresh() && r.metrics().waiting() == 0 && r.sentSinceScrape() == 0 && r.inFlight() <= r.metrics().running();
    }
}
