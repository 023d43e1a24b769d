package io.lmwarden.router.stats;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.lmwarden.router.diagnostics.PrefixBreak;
import io.lmwarden.router.diagnostics.TtfbSplit;

/**
 * One request of a session as the router saw it, with the three diagnostics: where it went, what it found in cache,
 * how long its first byte took, and how it ended. {@code GET /api/sessions/{key}} shows it as one flat object (the parts
 * are unwrapped).
 *
 * @param epochMillis  when the router received the step (milliseconds: concurrent steps are told apart)
 * @param sideRequest  a request under the session's id that continues none of its conversation (a title, a side call
 *                     with its own system prompt): shown as such, never a prefix break
 */
public record SessionStep(
        long epochMillis,
        String sessionKey,
        String sessionKeySource,
        String model,
        String api,
        boolean sideRequest,
        @JsonUnwrapped Placed placed,
        @JsonUnwrapped Cache cache,
        @JsonUnwrapped Timing timing,
        @JsonUnwrapped Result result) {

    /**
     * Where the step went.
     *
     * @param movedFrom the home replica the step was moved off (a spill), else null
     */
    public record Placed(String replica, String decision, String reason, String movedFrom) {
    }

    /**
     * What the step's prompt found in cache.
     *
     * @param promptTokens          the prompt size: the engine's figure when it reported one, else the router's estimate
     * @param sharedPrefixTokens    prefix shared with the step it continues, its lineage parent (router estimate)
     * @param prefixBreak           set when something early in the prompt changed since the step it continues
     * @param expectedCachedTokens  what the router expected the chosen replica to hold
     * @param expectedFrom          where that came from: {@code events} (the engine's KV events) or {@code estimated}
     *                              (the router's prefix index)
     * @param cachedTokens          cached prompt tokens the engine reported, -1 when it reported none
     * @param cacheMiss             the engine reported far fewer cached tokens than expected
     * @param prefixEvictedAtMillis with events: when the first block of the prompt the replica did not hold left its GPU
     *                              (epoch ms; the miss was an eviction at that time), -1 when unknown or nothing was missing
     */
    public record Cache(long promptTokens, int sharedPrefixTokens, PrefixBreak prefixBreak, int expectedCachedTokens,
                        String expectedFrom, long cachedTokens, boolean cacheMiss, long prefixEvictedAtMillis) {
    }

    /**
     * How long the first byte took.
     *
     * @param ttfbMillis   router receive → first response byte, -1 when none came
     * @param routerMillis router receive → upstream request sent (the router's own share)
     * @param ttfbSplit    router / queue / prefill, null without a TTFB
     * @param queueAteGain queueing took longer than the prefill the cache saved
     */
    public record Timing(double ttfbMillis, double routerMillis, TtfbSplit ttfbSplit, boolean queueAteGain) {
    }

    /**
     * How it ended.
     *
     * @param completed the stream ended with its completion marker (or a non-stream body ended)
     * @param outcome   ok, or what went wrong
     */
    public record Result(long outputTokens, int status, boolean completed, String outcome) {
    }

    /** The same step under another name for its session: a hash shown instead of a raw key. */
    public SessionStep withSessionKey(String key) {
        return new SessionStep(epochMillis, key, sessionKeySource, model, api, sideRequest, placed, cache, timing, result);
    }
}
