package io.lmwarden.sim.dp;

import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.engine.CacheTierMetrics;
import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.engine.EngineMetrics;
import io.lmwarden.sim.engine.RequestListener;
import io.lmwarden.sim.engine.SimRequest;
import io.lmwarden.sim.tokens.InvalidPromptException;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The engines behind one simulated API server, as {@code vllm serve --data-parallel-size N} runs them: a
 * request with {@code X-data-parallel-rank: k} goes to engine k; without one (or with a value that is
 * not an integer, which vLLM ignores) the internal balancer picks. One engine is the plain, non-DP case
 * (its only valid rank is 0, as in vLLM).
 */
public final class DataParallelEngines implements AutoCloseable {
    /** vLLM's DP coordinator publishes engine counts at most every 100 ms (engine time). */
    static final double COORDINATOR_INTERVAL_SECONDS = 0.1;

    private final List<Engine> engines;
    private final InternalBalancer balancer;
    private final double timeScale;
    /** Requests this server sent to each engine that may not have finished yet (vLLM's {@code engine_inflight}); with several engines only. */
    private final List<Set<SimRequest>> live = new ArrayList<>();
    /** Per engine: waiting, running and the token counters at the last publication, to see whether anything changed. */
    private long[] lastSeen;
    private Vertx vertx;
    private long coordinatorTimer = -1;

    public DataParallelEngines(List<Engine> engines, BalancerEra era, double timeScale) {
        if (engines.isEmpty()) {
            throw new IllegalArgumentException("a server needs at least one engine");
        }
        this.engines = List.copyOf(engines);
        this.balancer = new InternalBalancer(era, engines.size());
        this.timeScale = timeScale;
        for (int i = 0; i < engines.size(); i++) {
            live.add(new HashSet<>());
        }
    }

    public int size() {
        return engines.size();
    }

    public List<Engine> engines() {
        return engines;
    }

    public BalancerEra era() {
        return balancer.era();
    }

    /** Starts the engines and, for eras whose coordinator publishes counts, its periodic publication. */
    public void start(Vertx vertx) {
        this.vertx = vertx;
        engines.forEach(Engine::start);
        if (engines.size() > 1 && balancer.era() != BalancerEra.BLIND) {
            long periodMs = Math.max(1, Math.round(COORDINATOR_INTERVAL_SECONDS * 1000 / timeScale));
            coordinatorTimer = vertx.setPeriodic(periodMs, id -> publishIfChanged());
        }
    }

    /** An engine and the request submitted to it. */
    public record Submitted(Engine engine, SimRequest request) {
    }

    /**
     * Submits to the engine the rank header names, or to the balancer's choice. A rank outside 0..N-1 is
     * vLLM's ValueError, a 400: {@code data_parallel_rank 5 is out of range [0, 4).}
     */
    public Submitted submit(String rankHeader, int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens,
                            String cacheSalt, RequestListener listener) {
        return submit(rankHeader, promptTokens, outputTokens, stopsAtMaxTokens, cacheSalt, null, listener);
    }

    /** As above, under a LoRA adapter ({@code adapter} null = the base model). */
    public Submitted submit(String rankHeader, int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens,
                            String cacheSalt, io.lmwarden.sim.lora.Adapter adapter, RequestListener listener) {
        return submit(rankHeader, promptTokens, outputTokens, stopsAtMaxTokens, cacheSalt, adapter, 0, listener);
    }

    /** As above, with vLLM's request {@code priority}. */
    public Submitted submit(String rankHeader, int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens,
                            String cacheSalt, io.lmwarden.sim.lora.Adapter adapter, int priority, RequestListener listener) {
        Integer rank = parseRank(rankHeader);
        if (rank != null && (rank < 0 || rank >= engines.size())) {
            throw new InvalidPromptException("data_parallel_rank " + rank + " is out of range [0, " + engines.size() + ").",
                    null);
        }
        int index = rank != null ? rank : engines.size() == 1 ? 0 : balancer.choose(inflight());
        Engine engine = engines.get(index);
        SimRequest request = engine.submit(promptTokens, outputTokens, stopsAtMaxTokens, cacheSalt, adapter, priority, listener);
        // Only the balancer reads the in-flight sets, and it prunes them as it reads: one engine has no balancer,
        // so tracking its requests would keep every request ever served.
        if (engines.size() > 1) {
            synchronized (live) {
                live.get(index).add(request);
            }
        }
        return new Submitted(engine, request);
    }

    /** Requests held for the balancer's in-flight counts (pruned of finished ones at each choice). */
    public int tracked() {
        synchronized (live) {
            return live.stream().mapToInt(Set::size).sum();
        }
    }

    /** vLLM's {@code int(header)}: surrounding blanks allowed, anything else not an integer is ignored. */
    static Integer parseRank(String header) {
        if (header == null) {
            return null;
        }
        try {
            return Integer.parseInt(header.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private int[] inflight() {
        int[] counts = new int[engines.size()];
        synchronized (live) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] = engines.get(i).retainUnfinished(live.get(i));
            }
        }
        return counts;
    }

    /**
     * The coordinator forwards counts only when an engine reported a change since its last publication (an
     * engine reports after every step whose counts differ); until then the balancer's local bumps accumulate.
     * A request that came and went between two ticks changed the counts too, which the token counters show.
     */
    private synchronized void publishIfChanged() {
        List<EngineSnapshot> now = snapshots();
        long[] seen = seen(now);
        if (Arrays.equals(seen, lastSeen)) {
            return;
        }
        int n = now.size();
        int[] waiting = new int[n];
        int[] running = new int[n];
        double[] kv = new double[n];
        for (int i = 0; i < n; i++) {
            waiting[i] = now.get(i).waiting();
            running[i] = now.get(i).running();
            kv[i] = now.get(i).kvUsage();
        }
        lastSeen = seen;
        balancer.publish(waiting, running, kv);
    }

    /** Per engine: waiting, running and the token counters, whose change since a publication calls for another. */
    private static long[] seen(List<EngineSnapshot> snapshots) {
        long[] seen = new long[snapshots.size() * 4];
        for (int i = 0; i < snapshots.size(); i++) {
            EngineSnapshot s = snapshots.get(i);
            seen[i * 4] = s.waiting();
            seen[i * 4 + 1] = s.running();
            seen[i * 4 + 2] = s.promptTokens();
            seen[i * 4 + 3] = s.generationTokens();
        }
        return seen;
    }

    /**
     * Whether the balancer's next choice scores every engine idle: the coordinator's last publication is of the engines
     * as they are now, none waiting or running, and no request was sent since. Synchronised with the publication, so
     * a publication under way (its snapshot read, not yet applied) cannot make a stale answer. Without a coordinator
     * (one engine, or the blind era) nothing is ever published: always false.
     */
    public synchronized boolean balancerSeesEveryEngineIdle() {
        return Arrays.equals(seen(snapshots()), lastSeen) && balancer.seesEveryEngineIdle();
    }

    public List<EngineMetrics> metrics() {
        return engines.stream().map(Engine::metrics).toList();
    }

    public List<CacheTierMetrics> cacheTierMetrics() {
        return engines.stream().map(Engine::cacheTierMetrics).toList();
    }

    public List<EngineSnapshot> snapshots() {
        return engines.stream().map(Engine::snapshot).toList();
    }

    @Override
    public void close() {
        if (coordinatorTimer >= 0 && vertx != null) {
            vertx.cancelTimer(coordinatorTimer);
        }
        engines.forEach(Engine::close);
    }
}
