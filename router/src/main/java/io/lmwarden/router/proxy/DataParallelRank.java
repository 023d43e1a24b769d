package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.reservation.Reservation;
import io.vertx.core.MultiMap;

/**
 * vLLM's {@code X-data-parallel-rank} on the way upstream: a replica that is one engine rank of a
 * {@code vllm serve --data-parallel-size N} server is reached through the server's port with this header;
 * a client's own value was consumed by placement and is never forwarded (the header is in the set the
 * router writes itself).
 */
final class DataParallelRank {

    static final String HEADER = "x-data-parallel-rank";

    private DataParallelRank() {
    }

    /** Names the replica's engine rank, unless the placement leaves the engine to the server's own balancer. */
    static void apply(Reservation r, MultiMap upstreamHeaders) {
        if (!r.placement().engineBalances()) {
            r.dataParallelRank().ifPresent(rank -> upstreamHeaders.set("X-data-parallel-rank", Integer.toString(rank)));
        }
    }

    /** What {@code X-LMW-Replica} tells the client: the rank placed on, or the endpoint when its balancer chose. */
    static String answeredBy(Reservation r) {
        return r.placement().engineBalances() ? r.endpointId() : r.replicaId();
    }
}
