package io.lmwarden.bench.settings;

import java.time.Duration;
import java.util.List;

/**
 * What is run against the pool and for how long: the variants, their repeats and the stages, on which clock.
 *
 * @param policies       variants in order (a policy name, {@code POLICY+admission}, {@code default}, {@code ceiling}, …)
 * @param repeat         how often every variant runs, the order alternated
 * @param sessions       concurrent sessions per stage
 * @param stage          length of every stage's measurement window, workload time
 * @param settle         unmeasured time at each stage's concurrency before its window opens, workload time
 * @param timeScale      workload seconds per wall second
 * @param sampleInterval how often replicas busy is sampled, workload time
 * @param warmUp         unmeasured load before the first variant, wall-clock time (JIT warm-up)
 * @param stepLog        write every step of every variant to a CSV (always done for runs with faults)
 * @param minSteps       the fewest steps a stage's window holds: it stays open past its nominal end until that many
 *                       steps have ended in it (0: the stage is its length only). What a run asserts about its steps
 *                       then holds on a slow or busy machine too, where a short stage may end before its steps do.
 */
public record RunPlan(
        List<String> policies,
        int repeat,
        List<Integer> sessions,
        Duration stage,
        Duration settle,
        double timeScale,
        Duration sampleInterval,
        Duration warmUp,
        boolean stepLog,
        int minSteps) {

    /** The upper bound variant's name: the same workload on KV caches large enough that nothing is evicted ({@code pool.VariantSpec}). */
    public static final String CEILING = "ceiling";


    public RunPlan {
        policies = List.copyOf(policies);
        sessions = List.copyOf(sessions);
        if (policies.isEmpty() || sessions.isEmpty()) {
            throw new IllegalArgumentException("--policies and --sessions need at least one value");
        }
        if (sessions.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("--sessions values must be >= 1, got " + sessions);
        }
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
        }
        if (settle.isNegative()) {
            throw new IllegalArgumentException("--settle must be >= 0");
        }
        if (stage.isNegative() || stage.isZero()) {
            throw new IllegalArgumentException("--stage must be > 0");
        }
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("--time-scale must be > 0, got " + timeScale);
        }
        if (warmUp.isNegative()) {
            throw new IllegalArgumentException("--warmup must be >= 0");
        }
        if (sampleInterval.isNegative() || sampleInterval.isZero()) {
            throw new IllegalArgumentException("--sample-interval must be > 0");
        }
        if (minSteps < 0) {
            throw new IllegalArgumentException("--stage-min-steps must be >= 0, got " + minSteps);
        }
    }

    public RunPlan(List<String> policies, int repeat, List<Integer> sessions, Duration stage, Duration settle, double timeScale,
                   Duration sampleInterval, Duration warmUp, boolean stepLog) {
        this(policies, repeat, sessions, stage, settle, timeScale, sampleInterval, warmUp, stepLog, 0);
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

    /** The largest stage's concurrency. */
    public int maxSessions() {
        return sessions.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    public RunPlan withPolicies(List<String> p) {
        return new RunPlan(p, repeat, sessions, stage, settle, timeScale, sampleInterval, warmUp, stepLog, minSteps);
    }

    public RunPlan withRepeat(int r) {
        return new RunPlan(policies, r, sessions, stage, settle, timeScale, sampleInterval, warmUp, stepLog, minSteps);
    }

    public RunPlan withWarmUp(Duration w) {
        return new RunPlan(policies, repeat, sessions, stage, settle, timeScale, sampleInterval, w, stepLog, minSteps);
    }
}
