package io.lmwarden.router.api;

import io.lmwarden.router.cluster.RouterCluster;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaView;
import io.vertx.ext.web.RoutingContext;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

/**
 * {@code POST /api/replicas/{id}/drain} takes a replica out of rotation without stopping it, {@code DELETE} takes it
 * back. The drain goes through the cluster, so every router of it stops placing there. The answer is the replica's
 * drain state: {@code draining} while requests are in flight there, then {@code drained}.
 */
public final class DrainApi {

    /** The drain path; the id may contain '/' (a data-parallel rank: {@code sim-0/rank-1}), raw or as {@code %2F}. */
    public static final String PATH = "/api/replicas/(.+)/drain";
    private static final String PREFIX = "/api/replicas/";
    private static final String SUFFIX = "/drain";

    private final ReplicaPool pool;
    private final LongFunction<PoolSnapshot> snapshot;
    private final RouterCluster cluster;

    public DrainApi(ReplicaPool pool, LongFunction<PoolSnapshot> snapshot, RouterCluster cluster) {
        this.pool = pool;
        this.snapshot = snapshot;
        this.cluster = cluster;
    }

    public void drain(RoutingContext rc) {
        set(rc, true);
    }

    public void undrain(RoutingContext rc) {
        set(rc, false);
    }

    /** The replica id in a drain path, percent-decoded ('+' stays '+': it is a path, not a form). */
    static String idOf(String path) {
        String raw = path.substring(PREFIX.length(), path.length() - SUFFIX.length());
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private void set(RoutingContext rc, boolean drain) {
        String id;
        try {
            id = idOf(rc.request().path());
        } catch (IllegalArgumentException e) {
            JsonReplies.error(rc, 400, "the replica id in " + rc.request().path() + " is not valid percent-encoding: " + e.getMessage());
            return;
        }
        if (pool.get(id).isEmpty()) {
            JsonReplies.error(rc, 404, "no replica '" + id + "'; known: "
                    + pool.all().stream().map(r -> r.id()).sorted().collect(Collectors.joining(", ")) + " (GET /api/replicas lists them)");
            return;
        }
        // The cluster's call blocks until every member applied it: off the event loop.
        rc.vertx().executeBlocking(() -> {
            cluster.drain(id, drain);
            return null;
        }, false).onComplete(done -> {
            if (done.failed()) {
                JsonReplies.error(rc, 503, "the drain could not be shared with the other routers: " + done.cause().getMessage());
                return;
            }
            ReplicaView r = snapshot.apply(System.nanoTime()).byId(id).orElse(null);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("drain", r == null ? "none" : r.drain().label());
            m.put("drainedByOperator", pool.operatorDrains(id));
            m.put("inFlight", r == null ? 0 : r.inFlight());
            JsonReplies.send(rc, 200, m);
        });
    }
}
