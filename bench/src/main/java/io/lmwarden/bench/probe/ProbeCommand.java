package io.lmwarden.bench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.BenchMain;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lmw-bench probe --target URL}: how a user checks the gain on their own pool without trusting us. First
 * one prompt twice on one replica (a hit) and once on another (a miss), from the engines' own usage; then every
 * policy cold (prompts the pool has not seen) and warm (the same prompts again) on the same stream, the policy
 * order alternated between repeats, each run's raw results kept.
 */
@Command(name = "probe", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Checks a running router's pool: a prefix-cache hit on the same replica and a miss on another,",
                "then each policy cold and warm on the same stream, order alternated, repeated; raw results kept.",
                "Arguments after -- go to every bench run (e.g. -- --system-tokens 3500 --steps 5)."})
public final class ProbeCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @ParentCommand
    BenchMain parent;

    @Option(names = "--target", required = true, paramLabel = "URL", description = "The running LM Warden router.")
    String target;

    @Option(names = "--admin-token", defaultValue = "${env:LMW_ADMIN_TOKEN}", description = "Bearer token for its admin API.")
    String adminToken;

    @Option(names = "--model", description = "Model to request (default: the first of /v1/models).")
    String model;

    @Option(names = "--prompt-tokens", defaultValue = "2000", description = "Size of the hit/miss prompt (default ${DEFAULT-VALUE}).")
    int promptTokens;

    @Option(names = "--policies", split = ",", defaultValue = "least-loaded,affinity",
            description = "Policies to compare (default ${DEFAULT-VALUE}).")
    List<String> policies;

    @Option(names = "--repeat", defaultValue = "2", description = "Repeats, policy order alternated (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--sessions", defaultValue = "4", description = "Concurrent sessions of every run (default ${DEFAULT-VALUE}).")
    int sessions;

    @Option(names = "--stage", defaultValue = "2m", description = "Length of every run (default ${DEFAULT-VALUE}).")
    String stage;

    @Option(names = "--seed", defaultValue = "42", description = "Base seed; every (repeat, policy) gets its own prompts.")
    long seed;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where probe.json and every run's files go.")
    Path out;

    @Parameters(paramLabel = "BENCH_ARGS", description = "More lmw-bench options for every run, after --.")
    List<String> benchArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintStream progress = parent.progress();
        String router = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
        Files.createDirectories(out);
        ObjectNode report = JSON.createObjectNode();
        report.put("target", router);

        CacheCheck check = new CacheCheck(router, adminToken);
        String m = model != null ? model : check.firstModel();
        CacheCheck.Outcome o = check.run(m, promptTokens, System.nanoTime());
        progress.println(line("cold", o.cold()));
        progress.println(line("same replica again", o.same()) + (o.hit() ? " — a hit, as expected" : " — NOT a hit"));
        if (o.other() != null) {
            progress.println(line("another replica", o.other()) + (o.miss() ? " — a miss, as expected" : " — NOT a miss"));
        } else {
            progress.println("only one ready replica: the miss on another replica cannot be checked");
        }
        report.set("cacheCheck", JSON.valueToTree(o));

        ArrayNode runs = report.putArray("runs");
        boolean runsOk = true;
        for (int r = 1; r <= repeat; r++) {
            List<String> order = new ArrayList<>(policies);
            if (r % 2 == 0) {
                Collections.reverse(order);
            }
            for (String policy : order) {
                long runSeed = seed + 1000L * r + policies.indexOf(policy);
                for (String phase : List.of("cold", "warm")) {
                    Path dir = out.resolve("r" + r + "-" + policy + "-" + phase);
                    List<String> args = new ArrayList<>(List.of("--target", router, "--policies", policy, "--sessions",
                            Integer.toString(sessions), "--stage", stage, "--seed", Long.toString(runSeed), "--warmup", "0",
                            "--model", m, "--out", dir.toString()));
                    if (adminToken != null) {
                        args.addAll(List.of("--admin-token", adminToken));
                    }
                    args.addAll(benchArgs);
                    progress.println("[probe] repeat " + r + ", " + policy + ", " + phase + " (seed " + runSeed + ")");
                    int exit = BenchMain.run(args.toArray(String[]::new), progress);
                    ObjectNode run = runs.addObject();
                    run.put("repeat", r);
                    run.put("policy", policy);
                    run.put("phase", phase);
                    run.put("seed", runSeed);
                    run.put("exit", exit);
                    if (exit != 0) {
                        runsOk = false;
                        continue;
                    }
                    JsonNode results = JSON.readTree(dir.resolve("results.json").toFile());
                    run.set("results", results.path("results"));
                    JsonNode row = results.path("results").path(0);
                    progress.println(String.format(Locale.ROOT, "[probe] repeat %d, %s, %s: TTFB p50 %.2f s, p95 %.2f s, prefix hits %.1f%%",
                            r, policy, phase, row.path("ttfb_p50_s").asDouble(Double.NaN), row.path("ttfb_p95_s").asDouble(Double.NaN),
                            row.path("prefix_hit_pct").asDouble(Double.NaN)));
                }
            }
        }
        Path written = out.resolve("probe.json");
        JSON.writeValue(written.toFile(), report);
        progress.println("wrote " + written);
        return o.passed() && runsOk ? 0 : 1;
    }

    private static String line(String what, CacheCheck.Shot s) {
        return String.format(Locale.ROOT, "[probe] %s on %s: %d of %d prompt tokens from cache", what, s.replica(), s.cachedTokens(),
                s.promptTokens());
    }
}
