package io.lmwarden.bench.cli;

import io.lmwarden.bench.run.BenchRunner;
import io.lmwarden.bench.settings.BenchSettings;
import io.lmwarden.common.build.BuildVersion;
import io.lmwarden.bench.report.BenchResults;
import io.lmwarden.bench.report.ReportFiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code java -jar lmw-bench.jar}: agent-style sessions against a pool, one table per routing policy. */
@Command(name = "lmw-bench", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = BenchMain.Version.class,
        subcommands = {io.lmwarden.bench.cli.ProbeCommand.class, ReplayCommand.class, WorkloadStatsCommand.class,
                SummarizeCommand.class},
        description = {
            "Runs closed-loop, Claude-Code-style sessions against a pool of vLLM replicas behind the LM Warden router,",
            "one variant per routing policy, and reports the published columns per stage.",
            "All durations are workload time; with --time-scale K a simulated stage takes 1/K of it on the wall clock."})
public final class BenchMain implements Callable<Integer> {

    /** The jar's own version, for --version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lmw-bench " + BuildVersion.of(BenchMain.class)};
        }
    }

    @CommandLine.Mixin
    BenchOptions options;

    private String[] args = new String[0];

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.config.file") == null) {
            // The in-process simulator and router log every start and stop at INFO; the progress lines are what
            // a bench user reads, so only their warnings get through.
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        }
        System.exit(run(args, System.err));
    }

    /** Runs the CLI; returns the exit code (0 ok, 1 failed run, 2 bad arguments). */
    public static int run(String[] args, PrintStream progress) {
        BenchMain main = new BenchMain();
        main.args = args.clone();
        main.progress = progress;
        CommandLine cli = new CommandLine(main);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof IllegalArgumentException) {
                cmd.getErr().println("lmw-bench: " + e.getMessage());
                return 2;
            }
            cmd.getErr().println("lmw-bench: run failed: " + e);
            e.printStackTrace(cmd.getErr());
            return 1;
        });
        return cli.execute(args);
    }

    private PrintStream progress = System.err;

    /** Where progress lines go (the probe subcommand writes there too). */
    public PrintStream progress() {
        return progress;
    }

    @Override
    public Integer call() throws Exception {
        BenchRunner.measure(settings(), progress);
        return 0;
    }

    BenchSettings settings() {
        return options.settings(commandLine());
    }

    /** How the report quotes this invocation. */
    public String commandLine() {
        return "java -jar bench/target/lmw-bench.jar " + String.join(" ", args);
    }
}
