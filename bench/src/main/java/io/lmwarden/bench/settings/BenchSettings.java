package io.lmwarden.bench.settings;

import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.bench.trace.TraceReplay;
import io.lmwarden.bench.workload.Workload;
import io.lmwarden.bench.workload.WorkloadSpec;

import java.nio.file.Path;

/**
 * One benchmark invocation, fully resolved: the pool, what runs on it, the sessions it sends and where the report goes.
 *
 * @param plan         the session classes, per-replica pool overrides and scheduled faults actually run: from
 *                     {@code --workload FILE}, else one class from the shape flags
 * @param workloadFile the workload file, or null for the flag shorthand
 * @param trace        {@code lmw-bench replay}: the trace played instead of closed-loop sessions (the stages are then
 *                     windows of the replay), or null
 * @param out          output directory, or null for stderr only
 * @param commandLine  the arguments as given, for the report
 */
public record BenchSettings(PoolSettings pool, RunPlan run, Workload plan, Path workloadFile, TraceReplay trace, Path out,
                            String commandLine) {

    public BenchSettings {
        if (pool.target() != null && run.policies().stream().anyMatch(p -> p.contains("@"))) {
            throw new IllegalArgumentException("--engines and policy@balancer apply to --simulate only; a running pool"
                    + " has its own servers");
        }
        if (pool.target() != null && run.policies().stream().anyMatch(p -> p.contains("*"))) {
            throw new IllegalArgumentException("--routers and policy*K start routers with --simulate; with --target list the"
                    + " running routers: --target URL1,URL2,URL3");
        }
        if (pool.target() != null && run.policies().contains(RunPlan.CEILING)) {
            throw new IllegalArgumentException("the ceiling variant enlarges simulated KV caches: it needs --simulate N");
        }
        if (!plan.replicaOverrides().isEmpty() && !pool.simulated()) {
            throw new IllegalArgumentException("per-replica overrides need --simulate (a running pool is what it is)");
        }
    }

    /** The first class's shape in the shorthand's terms (the whole workload for the flag shorthand), for reports. */
    public WorkloadSpec workload() {
        return plan.classes().get(0).shape().nominal();
    }

    /** The first class's API (the only one for the flag shorthand). */
    public ApiDialect api() {
        return plan.classes().get(0).api();
    }

    public BenchSettings withPool(PoolSettings p) {
        return new BenchSettings(p, run, plan, workloadFile, trace, out, commandLine);
    }

    public BenchSettings withTrace(TraceReplay t) {
        return new BenchSettings(pool, run, plan, workloadFile, t, out, commandLine);
    }

    public BenchSettings withRun(RunPlan r) {
        return new BenchSettings(pool, r, plan, workloadFile, trace, out, commandLine);
    }

    public BenchSettings withPlan(Workload p) {
        return new BenchSettings(pool, run, p, workloadFile, trace, out, commandLine);
    }

    public BenchSettings withOut(Path dir, String command) {
        return new BenchSettings(pool, run, plan, workloadFile, trace, dir, command);
    }
}
