package io.lmwarden.router.placement.prefix;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Milliseconds of prefill per computed prompt token, learned per replica from observed TTFBs (an
 * exponentially weighted moving average) with a configured prior. Only requests that met an idle
 * engine queue teach it: their TTFB is prefill, not waiting.
 */
public final class PrefillRates {

    private static final double ALPHA = 0.2;
    private static final int MIN_TOKENS = 64;

    private final double priorMsPerToken;
    private final Map<String, Double> learned = new ConcurrentHashMap<>();

    public PrefillRates(double priorMsPerToken) {
        this.priorMsPerToken = priorMsPerToken;
    }

    public double msPerToken(String replica) {
        return learned.getOrDefault(replica, priorMsPerToken);
    }

    public double prior() {
        return priorMsPerToken;
    }

    /** A request that found no queue: its engine time was prefill of {@code computedTokens}. */
    public void observe(String replica, double engineMillis, long computedTokens) {
        if (computedTokens < MIN_TOKENS || engineMillis <= 0) {
            return;
        }
        double sample = engineMillis / computedTokens;
        learned.merge(replica, sample, (old, s) -> old + ALPHA * (s - old));
    }
}
