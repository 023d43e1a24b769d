package io.lmwarden.bench.run;

import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.bench.settings.RunPlan;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.pool.Await;
import io.lmwarden.bench.pool.ServedModel;
import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.bench.trace.Trace;
import io.vertx.core.Vertx;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a trace on one variant (one policy, one repeat) and measures it in windows of {@code --stage} after
 * {@code --settle}, as many as the replay's length holds (at least one). A window's key is its number; Little's law's
 * concurrency is the window's mean number of sessions in flight. Requests still in flight at the end are drained and not
 * counted.
 */
public final class ReplayRunner implements LoadRun {

    private final BenchSettings settings;
    private final Trace trace;
    private final Vertx vertx;
    private final StreamingClient client;
    private final PrintStream progress;

    public ReplayRunner(BenchSettings settings, Trace trace, Vertx vertx, StreamingClient client, PrintStream progress) {
        this.settings = settings;
        this.trace = trace;
        this.vertx = vertx;
        this.client = client;
        this.progress = progress;
    }

    /** Windows the replay is measured in: as many whole stages as fit after the settle time, at least one. */
    public static int windows(RunPlan plan, Trace trace) {
        long measured = trace.lengthNanos() - plan.settle().toNanos();
        return (int) Math.max(1, measured / plan.stage().toNanos());
    }

    @Override
    public List<StageResult> run(VariantTarget target, String policy, ServedModel model, int repeat, long runNonce) {
        RunPlan plan = settings.run();
        TimeScale clock = new TimeScale(plan.timeScale());
        StepLog log = new StepLog();
        ReplayDriver driver = new ReplayDriver(vertx.getOrCreateContext(), client,
                new RequestTarget(target.urls(), model.name(), model.contextWindow(), target::inRotation,
                        settings.pool().stepsPerRouter()), trace, settings.api(), clock, runNonce,
                settings.workload().seed(), log);
        FaultScheduler faults = new FaultScheduler(target, settings.plan().faults(), clock, progress);
        WindowRecorder recorder = new WindowRecorder(vertx, target, clock, plan.sampleInterval());
        List<StageResult> results = new ArrayList<>();
        try {
            faults.start();
            driver.start();
            WindowRecorder.sleepUntil(System.nanoTime() + clock.wallNanos(plan.settle()));
            for (int window = 1; window <= windows(plan, trace); window++) {
                double before = Await.result(driver.sessionNanos(), WindowRecorder.PROBE_TIMEOUT);
                WindowRecorder.Window w = recorder.record(clock.wallNanos(plan.stage()));
                double inFlight = (Await.result(driver.sessionNanos(), WindowRecorder.PROBE_TIMEOUT) - before)
                        / (w.endNanos() - w.startNanos());
                List<Double> unfinished = Await.result(driver.liveSessions(), WindowRecorder.PROBE_TIMEOUT).stream()
                        .map(l -> clock.workloadSeconds(w.endNanos() - l.startedNanos())).toList();
                StageResult r = StageMeter.measure(new StageWindow(policy, window, repeat, inFlight,
                        clock.workloadSeconds(w.endNanos() - w.startNanos()), log.endedWithin(w.startNanos(), w.endNanos()), w.before(),
                        w.after(), w.busy(), w.busyShare(), w.cpuCores(), unfinished, target.urls().size(),
                        trace.requests() / (double) trace.sessions().size()), clock);
                results.add(r);
                progress.println(ProgressLine.of(r, (w.endNanos() - w.startNanos()) / 1e9).replace(" " + window + " sessions:",
                        " window " + window + String.format(java.util.Locale.ROOT, " (%.1f sessions in flight):", inFlight)));
            }
        } finally {
            faults.cancel();
            VariantRunner.drain(driver.drain(), clock, settings.pool().simulated());
        }
        return results;
    }
}
