package io.lmwarden.bench.metrics;

import io.lmwarden.sim.EngineSnapshot;
import io.lmwarden.sim.SimReplica;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads simulated engines in-process: the same counters their {@code /metrics} exposes, without an
 * HTTP scrape competing with the load for the CPU at every sample.
 */
public final class SimulatedEnginesProbe implements ReplicaProbe {

    private final List<SimReplica> replicas;

    public SimulatedEnginesProbe(List<SimReplica> replicas) {
        this.replicas = List.copyOf(replicas);
    }

    @Override
    public Future<List<ReplicaReading>> read() {
        List<ReplicaReading> readings = new ArrayList<>(replicas.size());
        for (SimReplica r : replicas) {
            List<EngineSnapshot> engines = r.engineSnapshots();
            for (int k = 0; k < engines.size(); k++) {
                EngineSnapshot s = engines.get(k);
                // One reading per engine: behind a data-parallel server each engine is a "replica" of the table.
                String id = engines.size() == 1 ? r.id() : r.id() + "/rank-" + k;
                readings.add(new ReplicaReading(id, s.running(), s.waiting(), s.prefixQueries(), s.prefixHits(),
                        s.generationTokens(), s.loraSlotWaits(), s.loraDiskLoads()));
            }
        }
        return Future.succeededFuture(readings);
    }

    @Override
    public String describe() {
        return "the " + replicas.size() + " simulated engines' counters, read in-process";
    }
}
