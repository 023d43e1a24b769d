package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.Reservations;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.stats.RouterMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;

import java.time.Duration;
import java.util.function.LongFunction;

/**
 * What every proxied exchange shares.
 *
 * @param maxConnectionsPerReplica the connection pool's cap per replica, so a full pool is told apart from a dead replica
 * @param acquireTimeout           how long a request may wait for a pooled connection (queue wait plus TCP connect)
 * @param retries                  how far a request that has sent nothing to its client yet is retried elsewhere
 */
public record ProxyContext(
        Vertx vertx,
        HttpClient client,
        ReplicaPool pool,
        LongFunction<PoolSnapshot> snapshot,
        Reservations reservations,
        AdmissionController admission,
        RouterMetrics metrics,
        Duration streamIdleTimeout,
        InFlightTracker inFlight,
        int maxConnectionsPerReplica,
        Duration acquireTimeout,
        RetryBudget retries) {
}
