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
                    }
                }
            });
        });
    }

    List<Integer> stop() {
        vertx.cancelTimer(timerId);
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }
}
