package io.lmwarden.bench.run;

import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.bench.settings.RunPlan;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.bench.report.Timeline;
import io.lmwarden.bench.pool.Await;
import io.lmwarden.bench.pool.ServedModel;
import io.lmwarden.bench.pool.VariantTarget;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * Runs every stage of one variant (one policy, one repeat) on an opened target with closed-loop sessions: sessions carry
 * over from one stage to the next (4 → 8 adds four sessions), each stage is measured over its own window, and at
 * the end in-flight steps are drained (and not counted).
 */
public final class VariantRunner implements LoadRun {

    private static final Logger LOG = Logger.getLogger(VariantRunner.class.getName());
    /** How long a simulated pool's last steps may finish before it is closed under them (wall time). */
    static final Duration SIMULATED_DRAIN = Duration.ofSeconds(10);
    /**
     * How long a stage waits at its end for scheduled faults still running: workload time, and at least
     * {@link #FAULT_GUARD_MIN_WALL} of wall time. Only a hang guard: every Day-2 operation has bounds of its own (the
     * operator's drain timeout, the ready timeout, a process's start timeout).
     */
    static final Duration FAULT_GUARD = Duration.ofHours(1);
    static final Duration FAULT_GUARD_MIN_WALL = Duration.ofMinutes(10);
    /** The windows of a stage's timeline (runs with scheduled faults), workload time. */
    static final Duration TIMELINE_WINDOW = Duration.ofSeconds(30);

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

    @Override
    public List<StageResult> run(VariantTarget target, String policy, ServedModel model, int repeat, long runNonce) {
        RunPlan plan = settings.run();
        TimeScale clock = new TimeScale(plan.timeScale());
        Context context = vertx.getOrCreateContext();
        StepLog log = new StepLog();
        SessionDriver driver = new SessionDriver(context, client, new RequestTarget(target.urls(), model.name(), model.contextWindow(),
                target::inRotation, settings.pool().stepsPerRouter()), settings.plan(), clock, runNonce, log);
        FaultScheduler faults = new FaultScheduler(target, settings.plan().faults(), clock, progress);
        WindowRecorder recorder = new WindowRecorder(vertx, target, clock, plan.sampleInterval());
        StageHold hold = new StageHold(log, plan.minSteps());
        List<StageResult> results = new ArrayList<>();
        try {
            faults.start();
            for (int sessions : plan.sessions()) {
                driver.setConcurrency(sessions);
                if (!plan.settle().isZero()) {
                    // Unmeasured: the new sessions' burst of first steps passes, so the stage measures the steady state.
                    WindowRecorder.sleepUntil(System.nanoTime() + clock.wallNanos(plan.settle()));
                }
                AtomicReference<List<String>> stillRunning = new AtomicReference<>(List.of());
                long stageWall = clock.wallNanos(plan.stage());
                WindowRecorder.Window w = recorder.record(stageWall, start -> {
                    stillRunning.set(faults.awaitRunning(faultGuard(clock)));
                    int ended = hold.await(start, stageWall);
                    if (ended < plan.minSteps()) {
                        progress.println("  stage ended at its guard with " + ended + " of the " + plan.minSteps()
                                + " steps --stage-min-steps asks for");
                    }
                });
                List<Double> unfinished = Await.result(driver.liveSessions(), WindowRecorder.PROBE_TIMEOUT).stream()
                        .map(l -> clock.workloadSeconds(w.endNanos() - l.startedNanos())).toList();
                List<StepRecord> steps = log.endedWithin(w.startNanos(), w.endNanos());
                StageResult r = StageMeter.measure(new StageWindow(policy, sessions, repeat, sessions,
                        clock.workloadSeconds(w.endNanos() - w.startNanos()), steps, w.before(),
                        w.after(), w.busy(), w.busyShare(), w.cpuCores(), unfinished, target.urls().size(),
                        settings.plan().meanCallsPerSession()), clock);
                if (!settings.plan().faults().isEmpty()) {
                    Timeline.Overrun overrun = new Timeline.Overrun(clock.workloadSeconds(w.endNanos() - w.nominalEndNanos()),
                            stillRunning.get());
                    r = r.withTimeline(TimelineMeter.measure(steps, faults.events(), faults.startNanos(), w.startNanos(), w.endNanos(),
                            clock, TIMELINE_WINDOW).withOverrun(overrun));
                    progress.print(describe(overrun, (w.endNanos() - w.nominalEndNanos()) / 1e9));
                }
                results.add(r);
                progress.println(ProgressLine.of(r, (w.endNanos() - w.startNanos()) / 1e9));
            }
            saveRouterState(target, policy, repeat);
        } finally {
            faults.cancel();
            drain(driver.drain(), clock, settings.pool().simulated());
        }
        if (settings.out() != null && (!settings.plan().faults().isEmpty() || settings.run().stepLog())) {
            try {
                progress.println("  wrote " + StepCsv.write(settings.out(), policy, repeat, log.endedWithin(Long.MIN_VALUE, Long.MAX_VALUE),
                        faults.startNanos(), clock));
            } catch (java.io.IOException e) {
                progress.println("  could not write the step log: " + e.getMessage());
            }
        }
        return results;
    }

    /** The router's {@code /api/replicas} at the last stage's end, while the pool still runs; a failure is reported, not fatal. */
    private void saveRouterState(VariantTarget target, String policy, int repeat) {
        if (settings.out() == null) {
            return;
        }
        try {
            progress.println("  wrote " + RouterStateFile.write(settings.out(), target.url(), settings.pool().adminToken(), policy, repeat));
        } catch (java.io.IOException e) {
            progress.println("  could not write the router's /api/replicas: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The wall time a stage waits at its end for its running faults. */
    static Duration faultGuard(TimeScale clock) {
        Duration scaled = Duration.ofNanos(clock.wallNanos(FAULT_GUARD));
        return scaled.compareTo(FAULT_GUARD_MIN_WALL) > 0 ? scaled : FAULT_GUARD_MIN_WALL;
    }

    /** The progress lines of a stage that ran past its nominal end; none when it did not. */
    static String describe(Timeline.Overrun overrun, double wallSeconds) {
        StringBuilder lines = new StringBuilder();
        if (overrun.happened()) {
            lines.append(String.format(java.util.Locale.ROOT, "  stage ran %.1f s past its nominal end (%.1f s wall) while scheduled "
                    + "faults finished; its figures include that time%n", overrun.seconds(), wallSeconds));
        }
        if (!overrun.stillRunning().isEmpty()) {
            lines.append("  hang guard reached: the stage ends with scheduled faults still running: ")
                    .append(String.join(", ", overrun.stillRunning())).append(System.lineSeparator());
        }
        return lines.toString();
    }

    /**
     * Waits for the steps still in flight (not counted): on a running pool at most 15 minutes of workload time plus 30 s,
     * so that the next variant does not start beside the last one's load; on a simulated pool, which is closed after the
     * variant, at most {@link #SIMULATED_DRAIN} (long agent calls would otherwise cost minutes per variant).
     */
    static void drain(io.vertx.core.Future<Void> drained, TimeScale clock, boolean simulated) {
        Duration drainLimit = simulated ? SIMULATED_DRAIN : Duration.ofNanos(clock.wallNanos(Duration.ofMinutes(15))).plusSeconds(30);
        try {
            Await.result(drained, drainLimit);
        } catch (IllegalStateException e) {
            LOG.log(simulated ? java.util.logging.Level.FINE : java.util.logging.Level.WARNING,
                    "steps still in flight after " + drainLimit.toSeconds() + " s of draining; closing anyway");
        }
    }

    /**
     * Runs unmeasured sessions (other prompts) for a while on the wall clock, so that the JIT has compiled
     * the router, simulator and client before anything is measured: with a compressed clock, every wall
     * millisecond of a cold JVM is K milliseconds of made-up latency.
     */
    public void warmUp(VariantTarget target, ServedModel model, Duration wall, int sessions) {
        TimeScale clock = new TimeScale(settings.run().timeScale());
        SessionDriver driver = new SessionDriver(vertx.getOrCreateContext(), client,
                new RequestTarget(target.urls(), model.name(), model.contextWindow()), settings.plan().reseeded(7919), clock, -1,
                new StepLog());
        driver.setConcurrency(sessions);
        WindowRecorder.sleepUntil(System.nanoTime() + wall.toNanos());
        // The warm-up pool is thrown away: its last steps need not finish.
        try {
            Await.result(driver.drain(), SIMULATED_DRAIN);
        } catch (IllegalStateException e) {
            LOG.fine("warm-up steps still in flight after " + SIMULATED_DRAIN.toSeconds() + " s; going on");
        }
    }
}
