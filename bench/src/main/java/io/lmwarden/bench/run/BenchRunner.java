package io.lmwarden.bench.run;

import io.lmwarden.bench.settings.RunPlan;
import io.lmwarden.bench.settings.PoolSettings;
import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.report.BenchResults;
import io.lmwarden.bench.report.Medians;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.bench.trace.Trace;
import io.lmwarden.bench.pool.BenchTarget;
import io.lmwarden.bench.pool.ModelDiscovery;
import io.lmwarden.bench.pool.ServedModel;
import io.lmwarden.bench.pool.RemoteRouterTarget;
import io.lmwarden.bench.pool.SimulatedTarget;
import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.pool.Await;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Runs every variant (policy × repeat) of one invocation and collects the results. */
public final class BenchRunner {

    /** Runs every variant of {@code settings} and writes the report files when it names an output directory. */
    public static BenchResults measure(BenchSettings settings, PrintStream progress) throws Exception {
        BenchResults results = new BenchRunner(settings, progress).run();
        if (settings.out() != null) {
            for (Path written : io.lmwarden.bench.report.ReportFiles.write(results, settings.out())) {
                progress.println("wrote " + written);
            }
        }
        return results;
    }


    private final BenchSettings settings;
    private final PrintStream progress;
    /** {@code replay}: the trace, read once for every variant; null for closed-loop sessions. */
    private final Trace trace;

    public BenchRunner(BenchSettings settings, PrintStream progress) {
        this.settings = settings;
        this.progress = progress;
        this.trace = settings.trace() == null ? null : Trace.load(settings.trace());
    }

    public BenchResults run() throws Exception {
        Instant started = Instant.now();
        String loadBefore = loadAverage();
        // One event loop for the load: the streams are cheap; the other cores' worth of CPU stays with
        // the router and the simulated engines.
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2));
        int maxSessions = settings.run().maxSessions();
        // A replay is an open loop: its requests in flight are not bounded by a session count.
        StreamingClient client = new StreamingClient(vertx, trace == null ? maxSessions * 2 + 8 : 1024);
        HttpClient control = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
        try {
            BenchTarget target = target(control);
            List<StageResult> perRepeat = new ArrayList<>();
            ServedModel model = null;
            String counterSource = "";
            // Against a long-lived router, every run needs session ids of its own, or it would find the previous
            // run's pins; a fresh in-process pool has none, so its ids stay reproducible.
            long runNonce = settings.pool().target() != null ? System.currentTimeMillis() : 0;
            RunPlan plan = settings.run();
            if (!plan.warmUp().isZero()) {
                progress.println("warming up the JVM for " + plan.warmUp().toMillis() / 1000.0 + " s (wall, not measured)");
                try (VariantTarget warm = target.open(plan.policies().get(0))) {
                    model = discover(control, warm);
                    new VariantRunner(settings, vertx, client, progress).warmUp(warm, model, plan.warmUp(), Math.min(8, maxSessions));
                }
            }
            LoadRun load = trace == null ? new VariantRunner(settings, vertx, client, progress) : replay(vertx, client);
            for (int r = 0; r < plan.repeat(); r++) {
                for (String policy : plan.policyOrder(r)) {
                    progress.println("[" + policy + ", repeat " + (r + 1) + "] starting on " + target.describe());
                    try (VariantTarget variant = target.open(policy)) {
                        progress.println(variant.urls().size() == 1 ? "  router at " + variant.url()
                                : "  " + variant.urls().size() + " clustered routers at " + String.join(", ", variant.urls()));
                        if (model == null) {
                            model = discover(control, variant);
                        }
                        counterSource = variant.probe().describe();
                        perRepeat.addAll(load.run(variant, policy, model, r + 1, ++runNonce));
                    }
                }
            }
            List<StageResult> ordered = new ArrayList<>();
            // distinct: a stage repeated at the same concurrency (a steady-state check) is one group of rows
            List<Integer> stages = trace == null ? plan.sessions().stream().distinct().toList()
                    : java.util.stream.IntStream.rangeClosed(1, ReplayRunner.windows(plan, trace)).boxed().toList();
            for (String policy : plan.policies()) {
                for (int sessions : stages) {
                    perRepeat.stream().filter(x -> x.policy().equals(policy) && x.sessions() == sessions).forEach(ordered::add);
                }
            }
            String machine = Runtime.getRuntime().availableProcessors() + " cores; load average " + loadBefore
                    + " before, " + loadAverage() + " after";
            return new BenchResults(settings, target.describe(), counterSource, model == null ? null : model.name(), started,
                    Instant.now(), machine, ordered, Medians.of(ordered));
        } finally {
            client.close();
            Await.result(control.close(), Duration.ofSeconds(10));
            Await.result(vertx.close(), Duration.ofSeconds(30));
        }
    }

    /** The trace's replay. */
    private LoadRun replay(Vertx vertx, StreamingClient client) {
        progress.println("replaying " + settings.trace().file() + ": " + trace.sessions().size() + " sessions, " + trace.requests()
                + " requests" + (trace.skippedSessions() == 0 ? "" : " (" + trace.skippedSessions() + " sessions begin after --duration)")
                + ", " + ReplayRunner.windows(settings.run(), trace) + " windows of " + settings.run().stage().toSeconds() + " s");
        return new ReplayRunner(settings, trace, vertx, client, progress);
    }

    /** The model to ask for and its window: --model and --context-window, else the target's /v1/models. */
    private ServedModel discover(HttpClient control, VariantTarget variant) {
        return ModelDiscovery.discover(control, variant.url(), settings.pool().model(), settings.pool().contextWindow());
    }

    private BenchTarget target(HttpClient control) {
        PoolSettings pool = settings.pool();
        if (pool.target() != null) {
            return new RemoteRouterTarget(control, pool.targets(), pool.adminToken(), pool.spillThreshold())
                    .withReplicaAdmin(pool.replicaAdmin());
        }
        long ceiling = trace != null ? trace.distinctTokens()
                : SimulatedTarget.ceilingKvTokens(settings.plan(), settings.run().maxSessions(), SimulatedTarget.profileOf(pool));
        SimulatedTarget simulated = new SimulatedTarget(pool, settings.plan(), settings.run(), ceiling);
        return pool.simProcesses() ? simulated.inSeparateProcesses() : simulated;
    }

    /** The 1/5/15-minute load averages, so that a report says whether the machine was busy. */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " / " + parts[1] + " / " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
