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
 * @param servedModels   the names its endpoint answers to ({@code /v1/models}), or {@link ServedModels#UNKNOWN}
 * @param drain          whether it is being taken out of rotation; a draining replica is not {@code ready}
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
        ScrapedMetrics metrics,
        boolean metricsFresh,
        String endpointId,
        int rank,
        ServedModels servedModels,
        DrainState drain) {

    /** A replica that is an endpoint of its own. */
    public ReplicaView(String id, String url, boolean ready, int inFlight, int sentSinceScrape, int stickySessions,
                       long pendingPrefillTokens, int pendingRequests, int pendingAtScrape, ScrapedMetrics metrics,
                       boolean metricsFresh) {
        this(id, url, ready, inFlight, sentSinceScrape, stickySessions, pendingPrefillTokens, pendingRequests,
                pendingAtScrape, metrics, metricsFresh, id, -1, ServedModels.UNKNOWN, DrainState.NONE);
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

    /** A ready, idle replica with no engine figures yet, to be refined; for tests and tools that build views by hand. */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** Builds a view field by field instead of through the eleven-argument constructor. */
    public static final class Builder {
        private final String id;
        private String url;
        private boolean ready = true;
        private int inFlight;
        private int sentSinceScrape;
        private int stickySessions;
        private long pendingPrefillTokens;
        private int pendingRequests;
        private int pendingAtScrape;
        private ScrapedMetrics metrics;
        private boolean metricsFresh;
        private ServedModels servedModels = ServedModels.UNKNOWN;
        private DrainState drain = DrainState.NONE;

        private Builder(String id) {
            this.id = id;
            this.url = "http://" + id;
        }

        public Builder url(String v) {
            url = v;
            return this;
        }

        public Builder ready(boolean v) {
            ready = v;
            return this;
        }

        public Builder inFlight(int v) {
            inFlight = v;
            return this;
        }

        public Builder sentSinceScrape(int v) {
            sentSinceScrape = v;
            return this;
        }

        public Builder stickySessions(int v) {
            stickySessions = v;
            return this;
        }

        /** Requests the router sent that have not produced a first byte, and their uncached tokens; counted at the scrape too. */
        public Builder pending(int requests, long prefillTokens) {
            pendingRequests = requests;
            pendingAtScrape = requests;
            pendingPrefillTokens = prefillTokens;
            return this;
        }

        public Builder pendingAtScrape(int v) {
            pendingAtScrape = v;
            return this;
        }

        /** Fresh engine figures. */
        public Builder metrics(ScrapedMetrics m) {
            metrics = m;
            metricsFresh = m != null;
            return this;
        }

        /** Engine figures older than {@code metricsStaleAfter}. */
        public Builder staleMetrics(ScrapedMetrics m) {
            metrics = m;
            metricsFresh = false;
            return this;
        }

        /** The names its {@code /v1/models} listed. */
        public Builder servedModels(ServedModels v) {
            servedModels = v;
            return this;
        }

        /** Draining or drained (then not ready). */
        public Builder drain(DrainState v) {
            drain = v;
            ready = ready && !v.active();
            return this;
        }

        public ReplicaView build() {
            return new ReplicaView(id, url, ready, inFlight, sentSinceScrape, stickySessions, pendingPrefillTokens, pendingRequests,
                    pendingAtScrape, metrics, metricsFresh, id, -1, servedModels, drain);
        }
    }
}
