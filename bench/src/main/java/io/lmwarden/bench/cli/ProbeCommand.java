package io.lmwarden.bench.cli;

import io.lmwarden.bench.run.BenchRunner;
import io.lmwarden.bench.probe.CacheCheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lmwarden.bench.cli.BenchMain;
import io.lmwarden.bench.cli.BenchOptions;
import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.bench.report.JsonReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
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
 * order alternated between repeats, each run's raw results kept. It takes every lmw-bench option; each run is one
 * policy, one repeat, its own seed.
 */
@Command(name = "probe", mixinStandardHelpOptions = true, sortOptions = false, defaultValueProvider = ProbeCommand.Defaults.class,
        description = {"Checks a running router's pool: a prefix-cache hit on the same replica and a miss on another,",
                "then each policy cold and warm on the same stream, order alternated, repeated; raw results kept.",
                "Takes lmw-bench's options; --repeat counts the probe's repeats (default 2), --sessions one stage (default 4),",
                "--stage its length (default 2m)."})
public final class ProbeCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** The probe's own defaults where they differ from a bench run's: a short check, one stage, two repeats. */
    static final class Defaults implements CommandLine.IDefaultValueProvider {
        @Override
        public String defaultValue(CommandLine.Model.ArgSpec arg) {
            if (!arg.isOption()) {
                return null;
            }
            return switch (((CommandLine.Model.OptionSpec) arg).longestName()) {
                case "--repeat" -> "2";
                case "--sessions" -> "4";
                case "--stage" -> "2m";
                default -> null;
            };
        }
    }

    @ParentCommand
    BenchMain parent;

    @CommandLine.Mixin
    BenchOptions options;

    @Option(names = "--prompt-tokens", defaultValue = "2000", description = "Size of the hit/miss prompt (default ${DEFAULT-VALUE}).")
    int promptTokens;

    @Override
    public Integer call() throws Exception {
        PrintStream progress = parent.progress();
        BenchSettings base = options.settings(parent.commandLine());
        if (base.pool().target() == null || base.pool().targets().size() != 1) {
            throw new IllegalArgumentException("probe checks one running router: give --target URL");
        }
        if (base.out() == null) {
            throw new IllegalArgumentException("probe keeps every run's files: give --out DIR");
        }
        String target = base.pool().target();
        Path out = base.out();
        String router = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
        Files.createDirectories(out);
        ObjectNode report = JSON.createObjectNode();
        report.put("target", router);

        CacheCheck check = new CacheCheck(router, base.pool().adminToken());
        String m = base.pool().model() != null ? base.pool().model() : check.firstModel();
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
        List<String> policies = base.run().policies();
        long seed = base.workload().seed();
        for (int r = 1; r <= base.run().repeat(); r++) {
            List<String> order = new ArrayList<>(policies);
            if (r % 2 == 0) {
                Collections.reverse(order);
            }
            for (String policy : order) {
                long runSeed = seed + 1000L * r + policies.indexOf(policy);
                for (String phase : List.of("cold", "warm")) {
                    Path dir = out.resolve("r" + r + "-" + policy + "-" + phase);
                    BenchSettings one = base.withPool(base.pool().withModel(m))
                            .withRun(base.run().withPolicies(List.of(policy)).withRepeat(1).withWarmUp(java.time.Duration.ZERO))
                            .withPlan(base.plan().withSeed(runSeed))
                            .withOut(dir, parent.commandLine() + "  # probe run: repeat " + r + ", " + policy + ", " + phase
                                    + ", seed " + runSeed);
                    progress.println("[probe] repeat " + r + ", " + policy + ", " + phase + " (seed " + runSeed + ")");
                    ObjectNode run = runs.addObject();
                    run.put("repeat", r);
                    run.put("policy", policy);
                    run.put("phase", phase);
                    run.put("seed", runSeed);
                    JsonNode results;
                    try {
                        results = JSON.readTree(JsonReport.render(BenchRunner.measure(one, progress)));
                        run.put("exit", 0);
                    } catch (IllegalArgumentException e) {
                        throw e;
                    } catch (Exception e) {
                        progress.println("[probe] run failed: " + e);
                        run.put("exit", 1);
                        runsOk = false;
                        continue;
                    }
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
