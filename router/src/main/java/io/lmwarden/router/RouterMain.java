package io.lmwarden.router;

import io.lmwarden.router.config.ConfigResolver;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.SettingsTable;
import io.lmwarden.router.config.Setting;
import io.lmwarden.common.build.BuildVersion;
import io.lmwarden.common.logging.LogOutput;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar lmw-router.jar [options]}: every setting of {@link SettingsTable} as a flag, an
 * environment variable and a YAML key; precedence flag &gt; env &gt; file &gt; default.
 */
public final class RouterMain {

    private RouterMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        CommandSpec spec = CommandSpec.create().name("lmw-router").mixinStandardHelpOptions(true)
                .version("lmw-router " + BuildVersion.of(RouterMain.class));
        spec.usageMessage().description("LM Warden: keeps each agent conversation on the vLLM replica that holds its prefix cache.",
                "Every option is also an environment variable LMW_<NAME> and a key of the --config YAML file.");
        for (Setting<?> o : SettingsTable.ALL) {
            spec.addOption(OptionSpec.builder(o.flag()).paramLabel("<" + o.key() + ">").type(String.class)
                    .description(o.description() + (o.defaultText().isEmpty() ? "" : " (default: " + o.defaultText() + ")"))
                    .build());
        }
        CommandLine cli = new CommandLine(spec);
        RouterConfig config;
        try {
            ParseResult parsed = cli.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) { // --help and --version
                return;
            }
            Map<Setting<?>, String> flags = new HashMap<>();
            for (Setting<?> o : SettingsTable.ALL) {
                if (parsed.hasMatchedOption(o.flag())) {
                    flags.put(o, parsed.matchedOptionValue(o.flag(), ""));
                }
            }
            String configFile = flags.getOrDefault(SettingsTable.CONFIG, System.getenv().getOrDefault(SettingsTable.CONFIG.env(), ""));
            Map<String, String> file = configFile.isBlank() ? Map.of() : ConfigResolver.readYaml(Path.of(configFile));
            config = ConfigResolver.resolve(flags, System.getenv(), file);
        } catch (CommandLine.ParameterException | IllegalArgumentException e) {
            System.err.println("lmw-router: " + e.getMessage());
            System.err.println("Try --help.");
            System.exit(2);
            return;
        }
        LogOutput log = LogOutput.install(config.logging().logFormat());
        ReplicaSource replicas = null;
        LmWardenRouter router;
        try {
            replicas = ReplicaSource.forConfig(config);
            router = LmWardenRouter.start(replicas.configure(config));
        } catch (RuntimeException e) {
            if (replicas != null) {
                replicas.close();
            }
            System.err.println("lmw-router: cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }
        if (!log.json()) {
            // For a person at a terminal; with JSON logs the "router listening" line says the same as fields.
            System.out.println("LM Warden router on http://127.0.0.1:" + router.port() + "  (policy " + config.placement().policy() + ")");
            replicas.describe().forEach(line -> System.out.println("  " + line));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        ReplicaSource started = replicas;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.shutdownLine(RouterMain.class.getName(), "shutdown requested (SIGTERM or SIGINT)",
                    "graceMs", config.server().shutdownGrace().toMillis());
            long startedAt = System.nanoTime();
            router.close();
            started.close();
            log.shutdownLine(RouterMain.class.getName(), "shutdown complete",
                    "tookMs", (System.nanoTime() - startedAt) / 1_000_000);
            stopped.countDown();
        }, "lmw-shutdown"));
        stopped.await();
    }
}
