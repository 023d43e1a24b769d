package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaProbe;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;

/** Samples how many replicas have a running request, at a fixed wall interval, until stopped. */
final class BusySampler {

    private final Vertx vertx;
    private final long timerId;
    private final List<Integer> samples = new ArrayList<>();
    private final java.util.Map<String, Integer> busyById = new java.util.HashMap<>();
    private boolean reading;

    BusySampler(Vertx vertx, ReplicaProbe probe, long intervalMillis) {
        this.vertx = vertx;
        this.timerId = vertx.setPeriodic(intervalMillis, id -> {
            if (reading) {
                return; // a slow probe skips a tick rather than piling up requests
            }
            reading = true;
            probe.read().onComplete(r -> {
                reading = false;
                if (r.succeeded()) {
                    synchronized (samples) {
                        samples.add(StageMeter.busy(r.result()));
                        r.result().forEach(reading -> busyById.merge(reading.id(), reading.running() > 0 ? 1 : 0, Integer::sum));
                    }
                }
            });
        });
    }

    /** Per replica id, the share of samples so far in which it had a running request. */
    java.util.Map<String, Double> busyShare() {
        synchronized (samples) {
            java.util.Map<String, Double> out = new java.util.HashMap<>();
            busyById.forEach((id, n) -> out.put(id, samples.isEmpty() ? Double.NaN : n / (double) samples.size()));
            return out;
        }
    }

    List<Integer> stop() {
        vertx.cancelTimer(timerId);
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }
}
