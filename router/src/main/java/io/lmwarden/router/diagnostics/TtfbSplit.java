package io.lmwarden.router.diagnostics;

/**
 * Question 3, "did the queue eat the gain?": one request's time to first byte split into the
 * router's own share, waiting in the engine's queue, and prefill.
 *
 * @param queueSource how the queue time was found
 * @param savedMs     prefill the cached tokens saved, at the replica's learned rate
 */
public record TtfbSplit(double routerMs, double queueMs, double prefillMs, String queueSource, double savedMs) {

    /** Splits an observed TTFB given the tokens the engine computed and its prefill rate. */
    public static TtfbSplit of(double ttfbMs, double routerMs, long computedTokens, long cachedTokens, double msPerToken) {
        double prefill = Math.max(0, computedTokens) * msPerToken;
        double engine = Math.max(0, ttfbMs - routerMs);
        double queue = Math.max(0, engine - prefill);
        return new TtfbSplit(round(routerMs), round(queue), round(Math.min(prefill, engine)), "ttfb-minus-prefill-estimate",
                round(Math.max(0, cachedTokens) * msPerToken));
    }

    /** Queueing took longer than what caching saved on this request. */
    public boolean queueAteGain() {
        return savedMs > 0 && queueMs > savedMs;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
