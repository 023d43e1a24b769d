package io.lmwarden.bench;

import io.lmwarden.bench.client.StreamingClient;
import io.lmwarden.bench.report.BenchResults;
import io.lmwarden.bench.report.Medians;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.bench.run.VariantRunner;
import io.lmwarden.bench.pool.BenchTarget;
import io.lmwarden.bench.pool.ModelDiscovery;
import io.lmwarden.sim.ProfileOverrides;
import io.lmwarden.bench.pool.RemoteRouterTarget;
import io.lmwarden.bench.pool.SimulatedTarget;
import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.pool.Await;
import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.dp.BalancerEra;
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

    private final BenchSettings settings;
    private final PrintStream progress;

    public BenchRunner(BenchSettings settings, PrintStream progress) {
        this.settings = settings;
        this.progress = progress;
    }

    public BenchResults run() throws Exception {
        Instant started = Instant.now();
        String loadBefore = loadAverage();
        // One event loop for the load: the streams are cheap; the other cores' worth of CPU stays with
        // the router and the simulated engines.
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2));
        int maxSessions = settings.sessions().stream().mapToInt(Integer::intValue).max().orElse(1);
        StreamingClient client = new StreamingClient(vertx, maxSessions * 2 + 8);
        HttpClient control = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
        try {
            BenchTarget target = target(control);
            List<StageResult> perRepeat = new ArrayList<>();
            String model = settings.model();
            String counterSource = "";
            // Against a long-lived router, every run needs session ids of its own, or it would find the previous
            // run's pins; a fresh in-process pool has none, so its ids stay reproducible.
            long runNonce = settings.target() != null ? System.currentTimeMillis() : 0;
            if (!settings.warmUp().isZero()) {
                progress.println("warming up the JVM for " + settings.warmUp().toMillis() / 1000.0 + " s (wall, not measured)");
                try (VariantTarget warm = target.open(settings.policies().get(0))) {
                    if (model == null) {
                        model = ModelDiscovery.firstModel(control, warm.url());
                    }
                    new VariantRunner(settings, vertx, client, progress).warmUp(warm, model, settings.warmUp(),
                            Math.min(8, settings.sessions().stream().mapToInt(Integer::intValue).max().orElse(4)));
                }
            }
            for (int r = 0; r < settings.repeat(); r++) {
                for (String policy : settings.policyOrder(r)) {
                    progress.println("[" + policy + ", repeat " + (r + 1) + "] starting on " + target.describe());
                    try (VariantTarget variant = target.open(policy)) {
                        progress.println(variant.urls().size() == 1 ? "  router at " + variant.url()
                                : "  " + variant.urls().size() + " clustered routers at " + String.join(", ", variant.urls()));
                        if (model == null) {
                            model = ModelDiscovery.firstModel(control, variant.url());
                        }
                        counterSource = variant.probe().describe();
                        perRepeat.addAll(new VariantRunner(settings, vertx, client, progress)
                                .run(variant, policy, model, r + 1, ++runNonce));
                    }
                }
            }
            List<StageResult> ordered = new ArrayList<>();
            for (String policy : settings.policies()) {
                for (int sessions : settings.sessions()) {
                    perRepeat.stream().filter(x -> x.policy().equals(policy) && x.sessions() == sessions).forEach(ordered::add);
                }
            }
            String machine = Runtime.getRuntime().availableProcessors() + " cores; load average " + loadBefore
                    + " before, " + loadAverage() + " after";
            return new BenchResults(settings, target.describe(), counterSource, model, started, Instant.now(), machine,
                    ordered, Medians.of(ordered));
        } finally {
            client.close();
            Await.result(control.close(), Duration.ofSeconds(10));
            Await.result(vertx.close(), Duration.ofSeconds(30));
        }
    }

    private BenchTarget target(HttpClient control) {
        if (settings.target() != null) {
            return new RemoteRouterTarget(control, settings.targets(), settings.adminToken(), settings.spillThreshold())
                    .withReplicaAdmin(settings.replicaAdmin());
        }
        SimProfile profile = ProfileOverrides.apply(SimProfile.named(settings.profile()), settings.profileOverrides());
        SimulatedTarget simulated = new SimulatedTarget(settings.simulate(), settings.engines(), BalancerEra.named(settings.dpBalancer()),
                profile, settings.plan().replicaOverrides(), settings.timeScale(), settings.workload().seed(), settings.spillThreshold(),
                settings.scrapeInterval(), settings.routerSettings(), settings.routers());
        return settings.simProcesses() ? simulated.inSeparateProcesses() : simulated;
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
