package io.lmwarden.bench.cli;

import io.lmwarden.bench.run.BenchRunner;
import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.bench.trace.TraceReplay;
import io.lmwarden.common.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code lmw-bench replay --trace FILE}: a Mooncake / AIPerf JSONL trace instead of closed-loop sessions, one variant per
 * policy as usual, measured in windows of {@code --stage}.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Replays a Mooncake / AIPerf JSONL trace (timestamp, input_length, output_length, hash_ids, optional",
                "session_id and delay) against every policy: equal hash ids are equal text blocks, sessions follow their",
                "delays, other requests their timestamps. Measured in windows of --stage after --settle; --sessions is not used."})
public final class ReplayCommand implements Callable<Integer> {

    @ParentCommand
    BenchMain parent;

    @CommandLine.Mixin
    BenchOptions options;

    @Option(names = "--trace", required = true, paramLabel = "FILE", description = "The JSONL trace.")
    Path trace;

    @Option(names = "--block-size", defaultValue = "512", paramLabel = "TOKENS",
            description = "Tokens per hash id (default ${DEFAULT-VALUE}, Mooncake's and AIPerf's).")
    int blockSize;

    @Option(names = "--speed", defaultValue = "1", paramLabel = "F",
            description = "Play the trace F times as fast: timestamps and delays divided by F (default ${DEFAULT-VALUE}).")
    double speed;

    @Option(names = "--duration", paramLabel = "D",
            description = "Play only the sessions that begin within D of the trace's start (after --speed), workload time"
                    + " (default: the whole trace).")
    String duration;

    @Override
    public Integer call() throws Exception {
        BenchSettings settings = options.settings(parent.commandLine())
                .withTrace(new TraceReplay(trace, blockSize, speed, duration == null ? null : Durations.parse(duration)));
        BenchRunner.measure(settings, parent.progress());
        return 0;
    }
}
