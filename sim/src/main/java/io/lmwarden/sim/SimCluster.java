package io.lmwarden.sim;

import io.lmwarden.sim.dp.DataParallelEngines;
import io.lmwarden.common.logging.LogFields;
import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.engine.SimClock;
import io.lmwarden.sim.http.EngineRelease;
import io.lmwarden.sim.http.ReplicaConfig;
import io.lmwarden.sim.http.ReplicaServer;
import io.lmwarden.sim.kvevents.KvCacheEvent;
import io.lmwarden.sim.kvevents.ZmqKvEventPublisher;
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

    /**
     * Starts every replica; blocks until all listen. Replica i is "sim-i" on basePort+i (or a free port); with
     * {@code engines} > 1 each is one data-parallel API server over that many engines.
     */
    public static SimCluster start(SimOptions options) {
        return start(options, EngineRelease.DEFAULT);
    }

    /** The same, every replica answering {@code GET /version} with {@code release}. */
    public static SimCluster start(SimOptions options, EngineRelease release) {
        Vertx vertx = Vertx.vertx();
        SimClock clock = new SimClock(options.timeScale());
        List<SimReplica> started = new ArrayList<>();
        try {
            for (int i = 0; i < options.replicas(); i++) {
                SimProfile profile = options.profileOf(i);
                List<Engine> engineList = new ArrayList<>();
                for (int e = 0; e < options.engines(); e++) {
                    Engine engine = new Engine(options.engines() == 1 ? i : e, profile, clock);
                    engine.usePriorityPolicy(options.priorityScheduling());
                    engineList.add(engine);
                }
                DataParallelEngines engines = new DataParallelEngines(engineList, options.dpBalancer(), options.timeScale());
                io.lmwarden.sim.lora.LoraServing lora = new io.lmwarden.sim.lora.LoraServing(options.lora(),
                        options.servedModelNames(), engineList);
                ReplicaServer server = new ReplicaServer(new ReplicaConfig(i, options.servedModelNames(), profile,
                        options.seed() + i, options.outputLength()), engines, lora, options.timeScale(), release);
                int port = options.basePort() == 0 ? 0 : options.basePort() + i;
                int actual;
                try {
                    actual = await(server.listen(vertx, options.host(), port));
                } catch (RuntimeException e) {
                    engines.close();
                    throw e;
                }
                List<ZmqKvEventPublisher> publishers;
                try {
                    publishers = publishKvEvents(options, i, engineList);
                } catch (RuntimeException e) {
                    await(server.close());
                    engines.close();
                    throw e;
                }
                engines.start(vertx);
                started.add(new SimReplica("sim-" + i, options.host(), actual, engines, server, publishers));
                LogFields.info(LOG, "simulated replica listening", "replica", "sim-" + i, "host", options.host(), "port", actual,
                        "profile", profile.name(), "timeScale", options.timeScale(), "engines", options.engines(),
                        "dpBalancer", options.engines() > 1 ? options.dpBalancer().flag() : "");
            }
        } catch (RuntimeException e) {
            new SimCluster(vertx, started).close();
            throw e;
        }
        return new SimCluster(vertx, started);
    }

    /**
     * One publisher per engine when KV events are on: replica i's engine e is data-parallel rank i × engines + e of the
     * endpoints (vLLM's port + rank rule, with the replicas of this one process on consecutive ranks; with port 0 each
     * binds an ephemeral port of its own, see {@link SimReplica#kvEventPorts()}). Each first
     * announces AllBlocksCleared: a fresh engine holds nothing (sequence 0 of its stream; vLLM itself sends nothing then).
     */
    private static List<ZmqKvEventPublisher> publishKvEvents(SimOptions options, int replica, List<Engine> engines) {
        List<ZmqKvEventPublisher> publishers = new ArrayList<>();
        if (!options.kvEvents().publishes()) {
            return publishers;
        }
        try {
            for (int e = 0; e < engines.size(); e++) {
                ZmqKvEventPublisher p = new ZmqKvEventPublisher(options.kvEvents(), replica * options.engines() + e, e);
                publishers.add(p);
                // What was bound, not what was configured: with port 0 only this line tells a subscriber where to go.
                LogFields.info(LOG, "kv events publishing", "replica", "sim-" + replica, "rank", e, "endpoint", p.endpoint(),
                        "replayEndpoint", p.replayEndpoint() == null ? "" : p.replayEndpoint());
                p.publish(List.of(new KvCacheEvent.AllBlocksCleared()));
                engines.get(e).publishKvEvents(p, options.kvEvents().selfDescribingHostEvents());
            }
        } catch (RuntimeException ex) {
            publishers.forEach(ZmqKvEventPublisher::close);
            throw ex;
        }
        return publishers;
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

    /** Lets every replica's {@code POST /sim/faults {"crash":true}} run {@code halt} (see {@code ReplicaServer.allowCrash}). */
    public void allowCrash(Runnable halt) {
        replicas.forEach(r -> r.server().allowCrash(halt));
    }

    /** Arms faults on replica {@code index}, with the JSON body {@code POST /sim/faults} takes. */
    public void armFaults(int index, String json) {
        replicas.get(index).server().armFaults(json);
    }

    @Override
    public void close() {
        for (SimReplica r : replicas) {
            stop(r);
        }
        try {
            await(vertx.close());
        } catch (RuntimeException e) {
            LogFields.warn(LOG, "closing Vert.x failed", "cause", e.getMessage());
        }
    }

    private static void stop(SimReplica r) {
        try {
            await(r.server().close());
        } catch (RuntimeException e) {
            LogFields.warn(LOG, "closing replica failed", "replica", r.id(), "cause", e.getMessage());
        }
        r.engines().close();
        r.kvEventPublishers().forEach(ZmqKvEventPublisher::close);
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
