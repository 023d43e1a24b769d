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
    private volatile int declaredRanks;
    /** Engine ranks seen in the last scrape when there were several; empty = a plain endpoint. */
    private volatile List<Integer> learnedRanks = List.of();

    EndpointState(DiscoveredReplica d) {
        this.id = d.id();
        update(d);
    }

    void update(DiscoveredReplica d) {
        this.url = d.url();
        this.ready = d.ready();
        this.declaredRanks = d.ranks();
    }

    String id() {
        return id;
    }

    String url() {
        return url;
    }

    boolean discoveredReady() {
        return ready;
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

    /** The id of the replica for engine {@code rank} behind this endpoint. */
    String replicaId(int rank) {
        return id + "/rank-" + rank;
    }
}
