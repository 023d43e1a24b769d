package io.lmwarden.router.api;

import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.stats.RouterMetrics;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.util.Map;
import java.util.function.LongFunction;

/** Liveness, readiness and the Prometheus text: open on every port, since kubelet and scrapers carry no token. */
public final class Probes {

    private final LongFunction<PoolSnapshot> snapshot;
    private final RouterMetrics metrics;

    public Probes(LongFunction<PoolSnapshot> snapshot, RouterMetrics metrics) {
        this.snapshot = snapshot;
        this.metrics = metrics;
    }

    public void healthz(RoutingContext rc) {
        JsonReplies.send(rc, 200, Map.of("status", "ok"));
    }

    /** 200 while at least one replica is ready, else 503. */
    public void readyz(RoutingContext rc) {
        int ready = snapshot.apply(System.nanoTime()).ready().size();
        JsonReplies.send(rc, ready > 0 ? 200 : 503, Map.of("ready", ready > 0, "readyReplicas", ready));
    }

    public void metrics(RoutingContext rc) {
        rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape());
    }
}
