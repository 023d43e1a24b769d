package io.lmwarden.bench.pool;

import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One router, or several clustered over loopback ({@link LoopbackCluster}, as the router's cluster tests
 * run them), all in this process with the same configuration. The members start one after the other:
 * each returns once it has joined and learned the pins, so all agree before the first request.
 * <p>
 * A member can be restarted as a rolling update of the router Deployment restarts a pod ({@link #restart}): it leaves
 * the bench's {@link RouterRotation} as a terminating pod leaves its Service, is shut down the way SIGTERM shuts a router
 * down ({@link LmWardenRouter#close}, the same path as {@code RouterMain}'s shutdown hook), and a new router takes its
 * port and cluster address, back in rotation once its {@code /readyz} says so.
 */
public final class LoopbackRouters implements AutoCloseable {

    /** The operator's router pods sleep this long in their preStop before the SIGTERM (RouterDeploymentDependent). */
    static final Duration PRE_STOP_DELAY = Duration.ofSeconds(10);
    /** How long a Service takes to drop a terminating endpoint, or add a ready one (kube-proxy's sync), workload time. */
    static final Duration ENDPOINT_PROPAGATION = Duration.ofSeconds(1);
    /** The operator's readiness probe period for router pods (RouterDeploymentDependent: /readyz every 5 s). */
    static final Duration READINESS_PERIOD = Duration.ofSeconds(5);
    /** A new router that is not ready after this long (workload time) fails the restart. */
    static final Duration READY_TIMEOUT = Duration.ofMinutes(5);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final AtomicReferenceArray<LmWardenRouter> routers;
    /** Each member's configuration with its bound port: a restarted member comes back where it was. */
    private final List<RouterConfig> configs;
    private final RouterRotation rotation;

    private LoopbackRouters(List<LmWardenRouter> routers, List<RouterConfig> configs) {
        this.routers = new AtomicReferenceArray<>(routers.toArray(LmWardenRouter[]::new));
        this.configs = List.copyOf(configs);
        this.rotation = new RouterRotation(routers.size());
    }

    /** {@code clusterName}: a name of this run's own, so that no other cluster on the machine is joined. */
    public static LoopbackRouters start(RouterConfig config, int count, String clusterName) {
        if (count < 1) {
            throw new IllegalArgumentException("need at least one router, got " + count);
        }
        List<LmWardenRouter> started = new ArrayList<>();
        List<RouterConfig> configs = new ArrayList<>();
        try {
            LoopbackCluster cluster = count == 1 ? null : LoopbackCluster.ofFreePorts(count, clusterName);
            for (int i = 0; i < count; i++) {
                RouterConfig own = cluster == null ? config : config.with(cluster.member(i));
                LmWardenRouter r = LmWardenRouter.start(own);
                started.add(r);
                configs.add(own.withPort(r.port()));
            }
        } catch (RuntimeException e) {
            started.forEach(LmWardenRouter::close);
            throw e;
        }
        return new LoopbackRouters(started, configs);
    }

    public List<String> urls() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < routers.length(); i++) {
            out.add("http://127.0.0.1:" + configs.get(i).server().port());
        }
        return out;
    }

    public int size() {
        return routers.length();
    }

    public RouterRotation rotation() {
        return rotation;
    }

    /** Where admin calls go: the first router in rotation (one being restarted does not answer). */
    public String adminUrl() {
        return urls().get(rotation.firstInRotation());
    }

    /**
     * A rolling restart's step for member {@code i}: terminating (the Service drops it after
     * {@link #ENDPOINT_PROPAGATION}; the router still serves through the preStop delay), SIGTERM's shutdown (not ready,
     * open streams and queued requests finish within its shutdownGrace, it leaves the cluster), a new router on the same
     * port joining the same cluster, and back in rotation once its /readyz answers 200 to a probe every
     * {@link #READINESS_PERIOD}, after the propagation delay. Blocks until then.
     */
    public void restart(int i, PoolEvents events) {
        String name = "router-" + i;
        events.record(name, PoolEvents.TERMINATING, "preStop " + PRE_STOP_DELAY.toSeconds() + " s, then SIGTERM's shutdown");
        events.sleep(ENDPOINT_PROPAGATION);
        rotation.takeOut(i);
        events.record(name, PoolEvents.OUT_OF_ROTATION, "the bench sends it no new steps");
        events.sleep(PRE_STOP_DELAY.minus(ENDPOINT_PROPAGATION));
        long stopping = System.nanoTime();
        LmWardenRouter old = routers.getAndSet(i, null);
        if (old != null) {
            old.close();
        }
        events.record(name, PoolEvents.STOPPED, String.format(java.util.Locale.ROOT, "graceful shutdown took %.1f s",
                events.seconds(System.nanoTime()) - events.seconds(stopping)));
        LmWardenRouter fresh = LmWardenRouter.start(configs.get(i));
        routers.set(i, fresh);
        events.record(name, PoolEvents.STARTED, "joined the cluster on " + fresh.url());
        double deadline = events.now() + READY_TIMEOUT.toSeconds();
        while (!ready(fresh.url())) {
            if (events.now() > deadline) {
                throw new IllegalStateException(name + " not ready " + READY_TIMEOUT.toSeconds() + " s after its start");
            }
            events.sleep(READINESS_PERIOD);
        }
        events.sleep(ENDPOINT_PROPAGATION);
        rotation.putBack(i);
        events.record(name, PoolEvents.READY, "back in rotation");
    }

    private static boolean ready(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url + "/readyz")).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        for (int i = routers.length() - 1; i >= 0; i--) {
            LmWardenRouter r = routers.getAndSet(i, null);
            if (r != null) {
                r.close();
            }
        }
    }
}
