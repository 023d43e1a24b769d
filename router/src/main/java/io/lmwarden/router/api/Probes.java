package io.lmwarden.router.api;

import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.stats.RouterMetrics;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/** Liveness, readiness and the Prometheus text: open on every port, since kubelet and scrapers carry no token. */
public final class Probes {

    private final LongFunction<PoolSnapshot> snapshot;
    private final RouterMetrics metrics;
    private final BooleanSupplier stopping;

    /** {@code stopping}: the router is shutting down, so it is not ready whatever its replicas are. */
    public Probes(LongFunction<PoolSnapshot> snapshot, RouterMetrics metrics, BooleanSupplier stopping) {
        this.snapshot = snapshot;
        this.metrics = metrics;
        this.stopping = stopping;
    }

    public void healthz(RoutingContext rc) {
        JsonReplies.send(rc, 200, Map.of("status", "ok"));
    }

    /** 200 while at least one replica is ready, else 503; 503 from the moment shutdown begins. */
    public void readyz(RoutingContext rc) {
        if (stopping.getAsBoolean()) {
            JsonReplies.send(rc, 503, Map.of("ready", false, "stopping", true));
            return;
        }
        int ready = snapshot.apply(System.nanoTime()).ready().size();
        JsonReplies.send(rc, ready > 0 ? 200 : 503, Map.of("ready", ready > 0, "readyReplicas", ready));
    }

    public void metrics(RoutingContext rc) {
        rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape());
    }
}
