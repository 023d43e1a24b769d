package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.pool.Await;
import io.lmwarden.bench.pool.VariantTarget;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Records one measurement window on a variant's pool, whatever drives the load: the engines' counters at its start and
 * end, replicas busy sampled through it, and the CPU the bench process used.
 */
final class WindowRecorder {

    private static final Logger LOG = Logger.getLogger(WindowRecorder.class.getName());
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
    private static final int PROBE_ATTEMPTS = 3;

    /**
     * What one window recorded; times are wall-clock nanos.
     *
     * @param nominalEndNanos where the window was to end; {@code endNanos} is later when something held it open
     */
    record Window(long startNanos, long nominalEndNanos, long endNanos, List<ReplicaReading> before, List<ReplicaReading> after, List<Integer> busy,
                  Map<String, Double> busyShare, double cpuCores) {
    }

    private final Vertx vertx;
    private final VariantTarget target;
    private final long sampleMillis;

    WindowRecorder(Vertx vertx, VariantTarget target, TimeScale clock, Duration sampleInterval) {
        this.vertx = vertx;
        this.target = target;
        this.sampleMillis = Math.max(10, clock.wallMillis(sampleInterval));
    }

    /** Measures from now for {@code wallNanos}; blocks until the window has ended and the counters are read. */
    Window record(long wallNanos) {
        return record(wallNanos, start -> {
        });
    }

    /**
     * As {@link #record(long)}, the window held open past its nominal end for as long as {@code holdOpen} blocks (run
     * once, at that end, with the window's start).
     */
    Window record(long wallNanos, java.util.function.LongConsumer holdOpen) {
        List<ReplicaReading> before = readWithRetry();
        long start = System.nanoTime();
        long cpuStart = ProcessCpu.nanos();
        BusySampler sampler = new BusySampler(vertx, target.probe(), sampleMillis);
        sleepUntil(start + wallNanos);
        long nominalEnd = System.nanoTime();
        holdOpen.accept(start);
        long end = System.nanoTime();
        double cpuCores = (ProcessCpu.nanos() - cpuStart) / (double) (end - start);
        List<Integer> busy = sampler.stop();
        return new Window(start, nominalEnd, end, before, readWithRetry(), busy, sampler.busyShare(), cpuCores);
    }

    /**
     * The replicas' counters; a target that does not answer within 30 s (a pod restarting, a slow scrape) is
     * asked again, twice, before the run fails.
     */
    private List<ReplicaReading> readWithRetry() {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
            try {
                return Await.result(target.probe().read(), PROBE_TIMEOUT);
            } catch (IllegalStateException e) {
                last = e;
                LOG.warning("reading replica counters failed (attempt " + (attempt + 1) + " of " + PROBE_ATTEMPTS + "): " + e.getMessage());
            }
        }
        throw last;
    }

    static void sleepUntil(long deadlineNanos) {
        long left;
        while ((left = deadlineNanos - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during a stage", e);
            }
        }
    }
}
