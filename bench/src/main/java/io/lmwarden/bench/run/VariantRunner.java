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
        SessionDriver driver = new SessionDriver(context, client, target.url(), settings.api(), model,
                settings.workload(), clock, runNonce, log);
        driver.identity(settings.sharedFirstMessage(), settings.keyless());
        long stageWall = clock.wallNanos(settings.stage());
        long sampleMillis = Math.max(10, clock.wallMillis(settings.sampleInterval()));
        List<StageResult> results = new ArrayList<>();
        try {
            for (int sessions : settings.sessions()) {
                List<ReplicaReading> before = Await.result(target.probe().read(), PROBE_TIMEOUT);
                long start = System.nanoTime();
                long cpuStart = ProcessCpu.nanos();
                driver.setConcurrency(sessions);
                BusySampler sampler = new BusySampler(vertx, target.probe(), sampleMillis);
                sleepUntil(start + stageWall);
                long end = System.nanoTime();
                double cpuCores = (ProcessCpu.nanos() - cpuStart) / (double) (end - start);
                List<Integer> busy = sampler.stop();
                List<ReplicaReading> after = Await.result(target.probe().read(), PROBE_TIMEOUT);
                StageResult r = StageMeter.measure(policy, sessions, repeat, clock.workloadSeconds(end - start), clock,
                        log.endedWithin(start, end), before, after, busy, cpuCores);
                results.add(r);
                progress.println(ProgressLine.of(r, (end - start) / 1e9));
            }
        } finally {
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
        var w = settings.workload();
        var otherPrompts = new io.lmwarden.bench.workload.WorkloadSpec(w.systemTokens(), w.firstTokens(), w.followUpSteps(),
                w.stepTokens(), w.maxOutputTokens(), w.thinkTime(), w.thinkJitter(), w.seed() + 7919);
        SessionDriver driver = new SessionDriver(vertx.getOrCreateContext(), client, target.url(), settings.api(), model,
                otherPrompts, clock, -1, new SessionDriver.StepLog());
        driver.setConcurrency(sessions);
        sleepUntil(System.nanoTime() + wall.toNanos());
        try {
            Await.result(driver.drain(), Duration.ofSeconds(60));
        } catch (IllegalStateException e) {
            LOG.warning("warm-up steps still in flight after 60 s; going on");
        }
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
