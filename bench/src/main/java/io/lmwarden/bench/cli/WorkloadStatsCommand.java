package io.lmwarden.bench.cli;

import io.lmwarden.bench.workload.SessionClass;
import io.lmwarden.bench.workload.Workload;
import io.lmwarden.bench.workload.WorkloadFile;
import io.lmwarden.bench.workload.WorkloadStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code lmw-bench workload-stats}: what a workload's classes send per call on a model of a given window, without a pool
 * (the calibration of {@code claude-code-tools} against the published table, and what it becomes on a smaller window).
 */
@Command(name = "workload-stats", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Plays a workload's sessions through the bench's own conversation logic (compactions included) on a",
                "model of --context-window tokens, without a pool, and prints per-call quantiles of prompt, growth, output and",
                "pause, and calls and compactions per session."})
public final class WorkloadStatsCommand implements Callable<Integer> {

    @ParentCommand
    BenchMain parent;

    @Option(names = "--workload", required = true, paramLabel = "FILE|NAME", description = "A workload file or a built-in one.")
    Path workload;

    @Option(names = "--context-window", required = true, paramLabel = "TOKENS", description = "The model's window (max_model_len).")
    int window;

    @Option(names = "--samples", defaultValue = "2000", paramLabel = "N", description = "Sessions per class (default ${DEFAULT-VALUE}).")
    int samples;

    @Override
    public Integer call() {
        if (window < 2 || samples < 1) {
            throw new IllegalArgumentException("--context-window must be >= 2 and --samples >= 1");
        }
        Workload w = WorkloadFile.read(workload);
        for (SessionClass c : w.classes()) {
            parent.progress().println("## " + (c.name().isEmpty() ? "sessions" : c.name()) + ", window " + window + " tokens, "
                    + samples + " sessions\n");
            parent.progress().println(WorkloadStats.of(c, samples, window).table());
        }
        return 0;
    }
}
