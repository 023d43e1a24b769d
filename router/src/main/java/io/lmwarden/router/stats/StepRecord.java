package io.lmwarden.router.stats;

/**
 * One request of a session as the router saw it.
 *
 * @param promptTokens        the router's estimate of the prompt size
 * @param expectedCachedTokens what placement expected the replica to hold (0 when unknown)
 * @param cachedTokens        cached prompt tokens the engine reported, -1 when it reported none
 * @param ttfbMillis          router receive → first response byte, -1 when none came
 * @param routerMillis        router receive → upstream request sent (the router's own share)
 * @param completed           the stream ended with its completion marker (or a non-stream body ended)
 * @param outcome             ok, or what went wrong
 */
public record StepRecord(
        long epochMillis,
        String sessionKey,
        String sessionKeySource,
        String model,
        String api,
        String replica,
        String decision,
        String reason,
        int promptTokens,
        int sharedPrefixTokens,
        int expectedCachedTokens,
        long cachedTokens,
        long outputTokens,
        double ttfbMillis,
        double routerMillis,
        int status,
        boolean completed,
        String outcome) {
}
