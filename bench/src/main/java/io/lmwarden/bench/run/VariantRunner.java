package io.lmwarden.bench.run;

import io.lmwarden.bench.BenchSettings;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.bench.pool.Await;
import io.lmwarden.bench.pool.VariantTarget;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Runs every stage of one variant (one policy, one repeat) on an opened target: sessions carry over from
 * one stage to the next (4 → 8 adds four sessions), each stage is measured over its own window, and at
 * the end in-flight steps are drained (and not counted).
 */
public final class VariantRunner {

    private static final Logger LOG = Logger.getLogger(VariantRunner.class.getName());
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
    private static final int PROBE_ATTEMPTS = 3;

    private final BenchSettings settings;
    private final Vertx vertx;
    private final StreamingClient client;
    private final PrintStream progress;

    public VariantRunner(BenchSettings settings, Vertx vertx, StreamingClient client, PrintStream progress) {
        this.settings = settings;
        this.vertx = vertx;
        this.client = client;
        this.progress = progress;
    }

    public List<StageResult> run(VariantTarget target, String policy, String model, int repeat, long runNonce) {
        TimeScale clock = new TimeScale(settings.timeScale());
        Context context = vertx.getOrCreateContext();
        SessionDriver.StepLog log = new SessionDriver.StepLog();
        SessionDriver driver = new SessionDriver(context, client, target.urls(), model, settings.plan(), clock, runNonce, log);
        FaultScheduler faults = new FaultScheduler(target, settings.plan().faults(), clock, progress);
        long stageWall = clock.wallNanos(settings.stage());
        long sampleMillis = Math.max(10, clock.wallMillis(settings.sampleInterval()));
        List<StageResult> results = new ArrayList<>();
        try {
            faults.start();
            for (int sessions : settings.sessions()) {
                driver.setConcurrency(sessions);
                if (!settings.settle().isZero()) {
                    // Unmeasured: the new sessions' burst of first steps passes, so the stage measures the steady state.
                    sleepUntil(System.nanoTime() + clock.wallNanos(settings.settle()));
                }
                List<ReplicaReading> before = readWithRetry(target);
                long start = System.nanoTime();
                long cpuStart = ProcessCpu.nanos();
                BusySampler sampler = new BusySampler(vertx, target.probe(), sampleMillis);
                sleepUntil(start + stageWall);
                long end = System.nanoTime();
                double cpuCores = (ProcessCpu.nanos() - cpuStart) / (double) (end - start);
                List<Integer> busy = sampler.stop();
                List<ReplicaReading> after = readWithRetry(target);
                List<StepRecord> steps = log.endedWithin(start, end);
                StageResult r = StageMeter.measure(policy, sessions, repeat, clock.workloadSeconds(end - start), clock,
                        steps, before, after, busy, sampler.busyShare(), cpuCores)
                        .withRouterSpread(RouterSpreadMeter.measure(steps, target.urls().size()));
                results.add(r);
                progress.println(ProgressLine.of(r, (end - start) / 1e9));
            }
        } finally {
            faults.cancel();
            Duration drainLimit = Duration.ofNanos(clock.wallNanos(Duration.ofMinutes(15))).plusSeconds(30);
            try {
                Await.result(driver.drain(), drainLimit);
            } catch (IllegalStateException e) {
                LOG.warning("steps still in flight after " + drainLimit.toSeconds() + " s of draining; closing anyway");
            }
        }
        return results;
    }

    /**
     * Runs unmeasured sessions (other prompts) for a while on the wall clock, so that the JIT has compiled
     * the router, simulator and client before anything is measured: with a compressed clock, every wall
     * millisecond of a cold JVM is K milliseconds of made-up latency.
     */
    public void warmUp(VariantTarget target, String model, Duration wall, int sessions) {
        TimeScale clock = new TimeScale(settings.timeScale());
        SessionDriver driver = new SessionDriver(vertx.getOrCreateContext(), client, target.urls(), model,
                settings.plan().reseeded(7919), clock, -1, new SessionDriver.StepLog());
        driver.setConcurrency(sessions);
        sleepUntil(System.nanoTime() + wall.toNanos());
        try {
            Await.result(driver.drain(), Duration.ofSeconds(60));
        } catch (IllegalStateException e) {
            LOG.warning("warm-up steps still in flight after 60 s; going on");
        }
    }

    /**
     * The replicas' counters; a target that does not answer within 30 s (a pod restarting, a slow scrape) is
     * asked again, twice, before the run fails.
     */
    private static List<ReplicaReading> readWithRetry(VariantTarget target) {
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

    private static void sleepUntil(long deadlineNanos) {
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
