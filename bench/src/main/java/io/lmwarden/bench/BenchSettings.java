package io.lmwarden.bench;

import io.lmwarden.bench.client.ApiFlavour;
import io.lmwarden.bench.workload.WorkloadSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One benchmark invocation, fully resolved.
 *
 * @param simulate        simulated replicas to start per variant (0 with {@code target})
 * @param target          URL of a running router, or null with {@code simulate}
 * @param profileOverrides {@code name=value,...} changes to the simulator profile's constants, or null
 * @param stage           length of every stage, workload time
 * @param sampleInterval  how often replicas busy is sampled, workload time
 * @param scrapeInterval  how often the in-process router scrapes engine load (--simulate), workload time
 * @param warmUp          unmeasured load before the first variant, wall-clock time (JIT warm-up)
 * @param model           model name to send, or null to ask the target's /v1/models
 * @param out             output directory, or null for stderr only
 * @param commandLine     the arguments as given, for the report
 * @param sharedFirstMessage every session starts with the same first message (agents started from one template)
 * @param keyless         sessions send no session key: the router must tell them apart by itself
 */
public record BenchSettings(
        int simulate,
        String target,
        String profile,
        String profileOverrides,
        double timeScale,
        List<String> policies,
        int repeat,
        List<Integer> sessions,
        Duration stage,
        WorkloadSpec workload,
        ApiFlavour api,
        String model,
        String spillThreshold,
        String adminToken,
        Duration sampleInterval,
        Duration warmUp,
        Duration scrapeInterval,
        Path out,
        String commandLine,
        boolean sharedFirstMessage,
        boolean keyless) {

    public BenchSettings {
        policies = List.copyOf(policies);
        sessions = List.copyOf(sessions);
        if ((simulate > 0) == (target != null)) {
            throw new IllegalArgumentException("choose exactly one target: --simulate N or --target URL");
        }
        if (policies.isEmpty() || sessions.isEmpty()) {
            throw new IllegalArgumentException("--policies and --sessions need at least one value");
        }
        if (sessions.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("--sessions values must be >= 1, got " + sessions);
        }
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
        }
        if (stage.isNegative() || stage.isZero()) {
            throw new IllegalArgumentException("--stage must be > 0");
        }
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("--time-scale must be > 0, got " + timeScale);
        }
        if (scrapeInterval.isNegative() || scrapeInterval.isZero()) {
            throw new IllegalArgumentException("--scrape-interval must be > 0");
        }
        if (warmUp.isNegative()) {
            throw new IllegalArgumentException("--warmup must be >= 0");
        }
        if (sampleInterval.isNegative() || sampleInterval.isZero()) {
            throw new IllegalArgumentException("--sample-interval must be > 0");
        }
    }

    /** The order of variants in repeat {@code r} (0-based): alternated, so that neither always runs first. */
    public List<String> policyOrder(int r) {
        if (r % 2 == 0) {
            return policies;
        }
        List<String> reversed = new java.util.ArrayList<>(policies);
        java.util.Collections.reverse(reversed);
        return reversed;
    }
}
