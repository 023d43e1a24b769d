package io.lmwarden.router.pool;

import java.util.List;

/**
 * One endpoint (one API server, one base URL) of the pool: what discovery says about it and which engine
 * ranks its last scrape showed. It is scraped once and is healthy or not as a whole; its replicas are either
 * itself or one per rank.
 */
final class EndpointState {

    private final String id;
    private volatile String url;
    private volatile boolean ready;
    /** Going (terminating) but still serving what it has in flight. */
    private volatile boolean draining;
    private volatile int declaredRanks;
    /** Engine ranks seen in the last scrape when there were several; empty = a plain endpoint. */
    private volatile List<Integer> learnedRanks = List.of();
    /** Its {@code /v1/models}, shared by all its engine ranks. */
    private volatile ServedModels servedModels = ServedModels.UNKNOWN;
    /** When {@code /v1/models} is to be asked next (System.nanoTime), unless stale first; failed asks in a row. */
    private volatile long servedModelsNextNanos;
    private volatile long servedModelsAskedNanos;
    private volatile boolean servedModelsStale = true;
    private volatile int servedModelsFailures;
    private volatile boolean servedModelsAnswered;
    /** Its {@code GET /version}, asked when it appears and again after a restart, not at every check. */
    private volatile EngineVersion engineVersion = EngineVersion.UNKNOWN;
    private volatile boolean engineVersionStale = true;
    private volatile long engineVersionRetryNanos;
    private volatile boolean engineVersionRetry;
    private volatile boolean publishesKvEvents;
    private volatile boolean reportsHostTier;
    /** What the router says about its engine being older than a feature needs ({@link EngineVersionWarnings}). */
    private volatile List<String> engineWarnings = List.of();

    EndpointState(DiscoveredReplica d) {
        this.id = d.id();
        update(d);
    }

    void update(DiscoveredReplica d) {
        if (url != null && (!url.equals(d.url()) || !ready && d.ready())) {
            // Another process, or the same one after a restart: it may serve other names now.
            servedModelsStale = true;
            engineVersionStale = true;
        }
        this.publishesKvEvents = d.publishesKvEvents();
        this.url = d.url();
        this.ready = d.ready();
        this.draining = d.draining();
        this.declaredRanks = d.ranks();
    }

    String id() {
        return id;
    }

    String url() {
        return url;
    }

    /** Discovery lists it as serving: ready, or draining (its requests in flight go on; it is scraped and checked). */
    boolean discoveredReady() {
        return ready || draining;
    }

    /** Discovery says it is going: it takes no new work. */
    boolean discoveredDraining() {
        return draining;
    }

    /** Whether the scrape may change the ranks: only when none were declared. */
    boolean learnsRanks() {
        return declaredRanks == 0;
    }

    void learnRanks(List<Integer> ranks) {
        this.learnedRanks = ranks.size() > 1 ? List.copyOf(ranks) : List.of();
    }

    /** The engine ranks served here as replicas of their own; empty when the endpoint is one replica. */
    List<Integer> ranks() {
        if (declaredRanks > 1) {
            return java.util.stream.IntStream.range(0, declaredRanks).boxed().toList();
        }
        return declaredRanks == 1 ? List.of() : learnedRanks;
    }

    ServedModels servedModels() {
        return servedModels;
    }

    void servedModels(ServedModels m) {
        servedModels = m;
    }

    /** {@code /v1/models} is asked now: the next ask after {@code refreshNanos}, unless something changes first. */
    void servedModelsAsked(long nowNanos, long refreshNanos) {
        servedModelsAskedNanos = nowNanos;
        servedModelsNextNanos = nowNanos + refreshNanos;
        servedModelsStale = false;
    }

    /** It answered with a list. */
    void servedModelsRead() {
        servedModelsFailures = 0;
        servedModelsAnswered = true;
    }

    /** Whether {@code /v1/models} has been asked to the end once (read, refused or timed out) since discovery. */
    boolean servedModelsAnswered() {
        return servedModelsAnswered;
    }

    /**
     * It did not answer usably: asked again after 1, 2, 4 … seconds, at most {@code refreshNanos} (a check that timed out
     * on a busy machine is retried soon; an endpoint that never answers, as behind vLLM's {@code --api-key}, seldom).
     */
    void servedModelsFailed(long nowNanos, long refreshNanos) {
        servedModelsAnswered = true;
        int failures = ++servedModelsFailures;
        long backoff = java.util.concurrent.TimeUnit.SECONDS.toNanos(1L << Math.min(failures - 1, 5));
        servedModelsNextNanos = nowNanos + Math.min(backoff, refreshNanos);
    }

    /** The names may have changed (a failed check, a restart): ask at the next good check. */
    void servedModelsStale() {
        servedModelsStale = true;
    }

    /**
     * The metrics label names the endpoint's first served name: one its list lacks means the list is out of date
     * (asked again, but not more often than every {@code minGapNanos}, should an engine label its metrics otherwise).
     */
    void metricsLabelled(java.util.Set<String> models, long nowNanos, long minGapNanos) {
        ServedModels m = servedModels;
        if (m.known() && nowNanos - servedModelsAskedNanos >= minGapNanos && !m.modelOf().keySet().containsAll(models)) {
            servedModelsStale = true;
        }
    }

    /** Whether {@code /v1/models} is to be asked at this check: stale (as at first), or its time has come. */
    boolean servedModelsDue(long nowNanos) {
        return servedModelsStale || nowNanos - servedModelsNextNanos >= 0;
    }

    EngineVersion engineVersion() {
        return engineVersion;
    }

    /**
     * What {@code /version} answered ({@link EngineVersion#UNKNOWN} for a 404 or an unreadable body: settled until a
     * restart); {@code retryAfterNanos} > 0 when it failed otherwise (no answer): asked again that much later.
     */
    void engineVersionRead(EngineVersion v, long nowNanos, long retryAfterNanos) {
        engineVersionStale = false;
        engineVersionRetry = retryAfterNanos > 0;
        engineVersionRetryNanos = nowNanos + retryAfterNanos;
        if (v.known() || retryAfterNanos == 0) {
            engineVersion = v;
        }
    }

    /** It may come back as another process (a failed check, a restart): its version is asked at the next good check. */
    void engineVersionStale() {
        engineVersionStale = true;
    }

    boolean engineVersionDue(long nowNanos) {
        return engineVersionStale || engineVersionRetry && nowNanos - engineVersionRetryNanos >= 0;
    }

    boolean publishesKvEvents() {
        return publishesKvEvents;
    }

    boolean reportsHostTier() {
        return reportsHostTier;
    }

    void reportsHostTier(boolean tier) {
        reportsHostTier = tier;
    }

    List<String> engineWarnings() {
        return engineWarnings;
    }

    void engineWarnings(List<String> notices) {
        engineWarnings = notices;
    }

    /** The id of the replica for engine {@code rank} behind this endpoint. */
    String replicaId(int rank) {
        return id + "/rank-" + rank;
    }
}
