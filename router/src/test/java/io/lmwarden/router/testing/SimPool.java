package io.lmwarden.router.testing;

import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimCluster;
import io.lmwarden.sim.SimOptions;
import io.lmwarden.sim.SimProfile;

import java.util.ArrayList;
import java.util.List;

/**
 * Simulated replicas for router tests, each in its own {@link SimCluster} so that one can be
 * stopped alone (a replica that dies). Replica i is listed to the router as {@code sim-i=URL}.
 */
public final class SimPool implements AutoCloseable {

    private final List<SimCluster> clusters = new ArrayList<>();
    private final List<Boolean> running = new ArrayList<>();

    private SimPool() {
    }

    public static SimPool start(int replicas, SimProfile profile, double timeScale) {
        SimPool pool = new SimPool();
        for (int i = 0; i < replicas; i++) {
            pool.clusters.add(SimCluster.start(SimOptions.defaults().withReplicas(1).withProfile(profile)
                    .withTimeScale(timeScale).withSeed(1000 + i)));
            pool.running.add(true);
        }
        return pool;
    }

    /** Entries for the router's static replica list: {@code sim-i=URL}. */
    public List<String> routerEntries() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < clusters.size(); i++) {
            out.add("sim-" + i + "=" + url(i));
        }
        return out;
    }

    public String url(int i) {
        return clusters.get(i).urls().get(0);
    }

    /** The engine's own prefix-cache counters summed over running replicas: {queries, hits}. */
    public long[] prefixCounters() {
        long q = 0;
        long h = 0;
        for (int i = 0; i < clusters.size(); i++) {
            if (running.get(i)) {
                EngineSnapshot s = clusters.get(i).replicas().get(0).snapshot();
                q += s.prefixQueries();
                h += s.prefixHits();
            }
        }
        return new long[] {q, h};
    }

    /** One replica's own prefix-cache counters: {queries, hits}. */
    public long[] prefixCounters(int i) {
        EngineSnapshot s = clusters.get(i).replicas().get(0).snapshot();
        return new long[] {s.prefixQueries(), s.prefixHits()};
    }

    /** Requests the replica's engine is running right now. */
    public int running(int i) {
        return clusters.get(i).replicas().get(0).snapshot().running();
    }

    public int size() {
        return clusters.size();
    }

    /** Stops one replica as if its process died. */
    public void kill(int i) {
        if (running.get(i)) {
            clusters.get(i).close();
            running.set(i, false);
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < clusters.size(); i++) {
            kill(i);
        }
    }
}
