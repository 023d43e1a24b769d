package io.lmwarden.router.pool;

/**
 * An immutable view of one replica at the moment a snapshot was taken: all a placement policy sees.
 *
 * @param metrics       the last scrape, or null when none yet
 * @param metricsFresh  whether {@code metrics} is recent enough to place by
 * @param stickySessions sessions the affinity table pins here
 * @param pendingPrefillTokens uncached prompt tokens the router sent here that have not produced a first byte yet
 * @param pendingRequests requests the router sent here that have not produced a first byte yet
 * @param pendingAtScrape the same count when {@code metrics} was scraped
 * @param endpointId     the endpoint (API server) this replica is, or is one engine rank of
 * @param rank           that engine's rank ({@code X-data-parallel-rank}), or -1 when the replica is the whole endpoint
 */
public record ReplicaView(
        String id,
        String url,
        boolean ready,
        int inFlight,
        int sentSinceScrape,
        int stickySessions,
        long pendingPrefillTokens,
        int pendingRequests,
        int pendingAtScrape,
        EngineMetrics metrics,
        boolean metricsFresh,
        String endpointId,
        int rank) {

    /** A replica that is an endpoint of its own. */
    public ReplicaView(String id, String url, boolean ready, int inFlight, int sentSinceScrape, int stickySessions,
                       long pendingPrefillTokens, int pendingRequests, int pendingAtScrape, EngineMetrics metrics,
                       boolean metricsFresh) {
        this(id, url, ready, inFlight, sentSinceScrape, stickySessions, pendingPrefillTokens, pendingRequests,
                pendingAtScrape, metrics, metricsFresh, id, -1);
    }

    /**
     * vLLM's data-parallel balancer score: {@code waiting * 4 + running}, with requests sent since the
     * last scrape counted as waiting. Without fresh engine metrics, the router's own in-flight count.
     */
    public double queueScore() {
        if (!metricsFresh) {
            return inFlight;
        }
        return (metrics.waiting() + sentSinceScrape) * 4 + metrics.running();
    }

    public double kvCacheUsage() {
        return metricsFresh ? metrics.kvCacheUsage() : 0;
    }
}
