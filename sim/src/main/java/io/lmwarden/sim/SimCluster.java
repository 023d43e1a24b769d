package io.lmwarden.sim;

import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.engine.SimClock;
import io.lmwarden.sim.http.ReplicaConfig;
import io.lmwarden.sim.http.ReplicaServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * N simulated vLLM replicas in this process, each with its own engine thread and HTTP server, sharing one
 * Vert.x instance that the cluster owns (so it can run inside another Vert.x application).
 */
public final class SimCluster implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SimCluster.class.getName());

    private final Vertx vertx;
    private final List<SimReplica> replicas;

    private SimCluster(Vertx vertx, List<SimReplica> replicas) {
        this.vertx = vertx;
        this.replicas = List.copyOf(replicas);
    }

    /** Starts every replica; blocks until all listen. Replica i is "sim-i" on basePort+i (or a free port). */
    public static SimCluster start(SimOptions options) {
        Vertx vertx = Vertx.vertx();
        SimClock clock = new SimClock(options.timeScale());
        List<SimReplica> started = new ArrayList<>();
        try {
            for (int i = 0; i < options.replicas(); i++) {
                SimProfile profile = options.profileOf(i);
                Engine engine = new Engine(i, profile, clock);
                ReplicaServer server = new ReplicaServer(new ReplicaConfig(i, options.servedModelNames(), profile,
                        options.seed() + i, options.outputLength()), engine);
                int port = options.basePort() == 0 ? 0 : options.basePort() + i;
                int actual = await(server.listen(vertx, options.host(), port));
                engine.start();
                started.add(new SimReplica("sim-" + i, options.host(), actual, engine, server));
                LOG.info("simulated replica sim-" + i + " listening on " + options.host() + ":" + actual
                        + " (profile " + profile.name() + ", time scale " + options.timeScale() + ")");
            }
        } catch (RuntimeException e) {
            new SimCluster(vertx, started).close();
            throw e;
        }
        return new SimCluster(vertx, started);
    }

    public List<SimReplica> replicas() {
        return replicas;
    }

    public List<String> urls() {
        return replicas.stream().map(SimReplica::url).toList();
    }

    /**
     * Stops replica {@code index} as a crash would: its server closes every connection (streams in flight end
     * without their terminator) and later connections are refused. The other replicas keep serving.
     */
    public void kill(int index) {
        stop(replicas.get(index));
    }

    @Override
    public void close() {
        for (SimReplica r : replicas) {
            stop(r);
        }
        try {
            await(vertx.close());
        } catch (RuntimeException e) {
            LOG.warning("closing Vert.x: " + e.getMessage());
        }
    }

    private static void stop(SimReplica r) {
        try {
            await(r.server().close());
        } catch (RuntimeException e) {
            LOG.warning("closing " + r.id() + ": " + e.getMessage());
        }
        r.engine().close();
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting or stopping the simulator", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out starting or stopping the simulator", e);
        }
    }
}
