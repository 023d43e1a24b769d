package io.lmwarden.router;

import io.lmwarden.router.config.ConfigResolver;
import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.RouterOption;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar lmw-router.jar [options]}: every option of {@link RouterOption} as a flag, an
 * environment variable and a YAML key; precedence flag &gt; env &gt; file &gt; default.
 */
public final class RouterMain {

    private RouterMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        CommandSpec spec = CommandSpec.create().name("lmw-router").mixinStandardHelpOptions(true);
        spec.usageMessage().description("LM Warden: keeps each agent conversation on the vLLM replica that holds its prefix cache.",
                "Every option is also an environment variable LMW_<NAME> and a key of the --config YAML file.");
        for (RouterOption o : RouterOption.values()) {
            spec.addOption(OptionSpec.builder(o.flag()).paramLabel("<" + o.key() + ">").type(String.class)
                    .description(o.description() + (o.defaultValue().isEmpty() ? "" : " (default: " + o.defaultValue() + ")"))
                    .build());
        }
        CommandLine cli = new CommandLine(spec);
        RouterConfig config;
        try {
            ParseResult parsed = cli.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) {
                return;
            }
            Map<RouterOption, String> flags = new EnumMap<>(RouterOption.class);
            for (RouterOption o : RouterOption.values()) {
                if (parsed.hasMatchedOption(o.flag())) {
                    flags.put(o, parsed.matchedOptionValue(o.flag(), ""));
                }
            }
            String configFile = flags.getOrDefault(RouterOption.CONFIG, System.getenv().getOrDefault(RouterOption.CONFIG.env(), ""));
            Map<String, String> file = configFile.isBlank() ? Map.of() : ConfigResolver.readYaml(Path.of(configFile));
            config = ConfigResolver.resolve(flags, System.getenv(), file);
        } catch (CommandLine.ParameterException | IllegalArgumentException e) {
            System.err.println("lmw-router: " + e.getMessage());
            System.err.println("Try --help.");
            System.exit(2);
            return;
        }
        LogSetup.configure(config.logFormat());
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
        System.out.println("LM Warden router on http://127.0.0.1:" + router.port() + "  (policy " + config.policy() + ")");
        replicas.describe().forEach(line -> System.out.println("  " + line));
        CountDownLatch stopped = new CountDownLatch(1);
        ReplicaSource started = replicas;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            router.close();
            started.close();
            stopped.countDown();
        }, "lmw-shutdown"));
        stopped.await();
    }
}
