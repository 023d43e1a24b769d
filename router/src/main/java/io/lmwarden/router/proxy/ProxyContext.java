package io.lmwarden.router.proxy;

import io.lmwarden.router.config.UpstreamSettings;
import io.lmwarden.router.placement.reservation.Reservations;
import io.lmwarden.router.placement.admission.AdmissionController;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.stats.RouterMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/**
 * What every proxied exchange shares. {@code askTokenIds}: true while some engine's cache view is followed, so that
 * chat/completions and completions requests ask the engine for the prompt's token ids ({@link TokenIdsRequest}).
 */
public record ProxyContext(
        Vertx vertx,
        HttpClient client,
        ReplicaPool pool,
        LongFunction<PoolSnapshot> snapshot,
        Reservations reservations,
        AdmissionController admission,
        RouterMetrics metrics,
        InFlightTracker inFlight,
        UpstreamSettings upstream,
        BooleanSupplier askTokenIds) {

    /** How long a request may wait for a pooled connection: the wait at the replica's connection cap plus the TCP connect. */
    Duration acquireTimeout() {
        return upstream.connectTimeout().plus(upstream.replicaQueueTimeout());
    }

    /** How far a request that has sent nothing to its client yet is retried elsewhere. */
    RetryBudget retries() {
        return new RetryBudget(upstream.retryAttempts(), upstream.retryBudget());
    }
}
