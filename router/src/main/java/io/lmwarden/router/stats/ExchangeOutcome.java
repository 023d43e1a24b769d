package io.lmwarden.router.stats;

/**
 * How one proxied exchange ended.
 *
 * @param receivedAtNanos when the router got the request
 * @param sentAtNanos     when the upstream request went out (the router's own time ends here)
 * @param ttfbNanos       receive → first response byte, -1 when none came
 * @param status          HTTP status returned to the client
 * @param completed       the response ended normally (completion marker for streams)
 * @param cachedTokens    cached prompt tokens the engine reported, -1 when none
 * @param promptTokens    prompt tokens the engine reported, -1 when none
 * @param outputTokens    output tokens the engine reported, -1 when none
 * @param outcome         ok, client_cancelled, midstream_drop, idle_timeout, upstream_error…
 */
public record ExchangeOutcome(
        long receivedAtNanos,
        long sentAtNanos,
        long ttfbNanos,
        int status,
        boolean completed,
        long cachedTokens,
        long promptTokens,
        long outputTokens,
        String outcome) {
}
