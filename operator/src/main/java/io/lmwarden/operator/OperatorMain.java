package io.lmwarden.operator;

import io.lmwarden.common.Durations;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.reconciler.ImageAllowList;
import io.lmwarden.operator.runtime.HealthServer;
import io.lmwarden.operator.runtime.LmWardenOperator;
import io.lmwarden.operator.runtime.LogLineFormatter;
import io.lmwarden.operator.runtime.OperatorSettings;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/** Entry point of the operator image: {@code java -jar lmw-operator.jar [options]}. */
@Command(name = "lmw-operator", mixinStandardHelpOptions = true, versionProvider = OperatorMain.Version.class,
        description = "Reconciles ModelDeployments (lmwarden.io/v1alpha1) into vLLM replicas and an LM Warden router.")
public final class OperatorMain implements Callable<Integer> {
    private static final Logger LOG = Logger.getLogger(OperatorMain.class.getName());

    /** The jar's Implementation-Version (the Maven project version); "dev" outside a packaged jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lmw-operator " + io.lmwarden.common.build.BuildVersion.of(OperatorMain.class)};
        }
    }

    @Option(names = "--namespaces", defaultValue = "${env:LMW_WATCH_NAMESPACES:-}",
            description = "Comma-separated namespaces to watch; empty watches all (env LMW_WATCH_NAMESPACES).")
    String namespaces;

    @Option(names = "--http-host", defaultValue = "${env:LMW_HTTP_HOST:-0.0.0.0}",
            description = "Address of the /healthz, /readyz and /metrics server.")
    String httpHost;

    @Option(names = "--http-port", defaultValue = "${env:LMW_HTTP_PORT:-8080}",
            description = "Port of the /healthz, /readyz and /metrics server (0 picks a free one).")
    int httpPort;

    @Option(names = "--leader-election", defaultValue = "${env:LMW_LEADER_ELECTION:-true}", arity = "1",
            description = "Hold a coordination.k8s.io Lease so only one replica reconciles.")
    boolean leaderElection;

    @Option(names = "--lease-name", defaultValue = "${env:LMW_LEASE_NAME:-lm-warden-operator}")
    String leaseName;

    @Option(names = "--lease-namespace", defaultValue = "${env:POD_NAMESPACE:-}",
            description = "Namespace of the Lease; defaults to the pod's namespace (env POD_NAMESPACE).")
    String leaseNamespace;

    @Option(names = "--lease-duration", defaultValue = "${env:LMW_LEASE_DURATION:-15s}",
            description = "Lease duration, e.g. 15s.")
    String leaseDuration;

    @Option(names = "--router-image", defaultValue = "${env:" + OperatorDefaults.ROUTER_IMAGE_ENV + ":-" + OperatorDefaults.BUILT_IN_ROUTER_IMAGE + "}",
            description = "Router image (also runs the simulator) for ModelDeployments that name none.")
    String routerImage;

    @Option(names = "--router-image-pull-policy", defaultValue = "${env:" + OperatorDefaults.IMAGE_PULL_POLICY_ENV + ":-IfNotPresent}")
    String routerImagePullPolicy;

    @Option(names = "--allowed-images", defaultValue = "${env:LMW_ALLOWED_IMAGES:-}",
            description = "Comma-separated image patterns ModelDeployments may run ('*' matches anything, e.g. registry.example/ml/*);"
                    + " empty allows every image (env LMW_ALLOWED_IMAGES).")
    String allowedImages;

    @Option(names = "--log-format", defaultValue = "${env:LMW_LOG_FORMAT:-text}",
            description = "text or json, one line per event (env LMW_LOG_FORMAT).")
    String logFormat;

    public static void main(String[] args) {
        System.exit(new CommandLine(new OperatorMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        LogLineFormatter.install(logFormat);
        KubernetesClient client = new KubernetesClientBuilder().build();
        CountDownLatch stopped = new CountDownLatch(1);
        RunningOperator running = start(client);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("stopping");
            running.close();
            client.close();
            stopped.countDown();
        }, "lmw-operator-shutdown"));
        stopped.await();
        return 0;
    }

    /** Starts the operator and its HTTP endpoints with the parsed options against the given API server. */
    RunningOperator start(KubernetesClient client) throws IOException {
        OperatorSettings settings = new OperatorSettings(parseNamespaces(namespaces),
                new OperatorDefaults(routerImage, routerImagePullPolicy), leaderElectionSettings(),
                ImageAllowList.parse(allowedImages));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);

        AtomicBoolean stopping = new AtomicBoolean(false);
        AtomicBoolean leading = new AtomicBoolean(false);
        Operator operator = LmWardenOperator.create(client, settings, registry, new LeaderCallbacks(
                () -> {
                    leading.set(true);
                    LOG.info("acquired the leader-election Lease; reconciling");
                },
                () -> {
                    leading.set(false);
                    if (!stopping.get()) {
                        LOG.severe("lost the leader-election Lease; exiting so Kubernetes restarts this pod as a standby");
                        System.exit(1);
                    }
                },
                leader -> LOG.info(() -> "leader is " + leader)));
        boolean electing = settings.leaderElection().isPresent();
        // A standby is ready: otherwise a rolling update would wait forever for a new pod that can only
        // lead after the old one is gone. The leader is ready once its informers are healthy.
        BooleanSupplier ready = () -> operator.getRuntimeInfo().isStarted()
                && ((electing && !leading.get()) || operator.getRuntimeInfo().allEventSourcesAreHealthy());
        HealthServer http = new HealthServer(httpHost, httpPort, ready, registry);
        try {
            operator.start();
        } catch (RuntimeException e) {
            http.close();
            throw e;
        }
        LOG.info(() -> "started: namespaces=" + (settings.namespaces().isEmpty() ? "all" : settings.namespaces())
                + " leaderElection=" + settings.leaderElection().isPresent()
                + " routerImage=" + settings.defaults().routerImage()
                + " allowedImages=" + (settings.allowedImages().allowsAll() ? "all" : settings.allowedImages().patterns())
                + " http=" + httpHost + ":" + http.port());
        return new RunningOperator(operator, http, stopping);
    }

    /** A started operator with its HTTP server; closing stops both. */
    record RunningOperator(Operator operator, HealthServer http, AtomicBoolean stopping) implements AutoCloseable {
        @Override
        public void close() {
            stopping.set(true);
            try {
                operator.stop();
            } finally {
                http.close();
            }
        }
    }

    private Optional<OperatorSettings.LeaderElection> leaderElectionSettings() {
        if (!leaderElection) {
            return Optional.empty();
        }
        return Optional.of(new OperatorSettings.LeaderElection(leaseName,
                Optional.ofNullable(leaseNamespace).filter(s -> !s.isBlank()),
                identity(), parseDuration(leaseDuration)));
    }

    static Set<String> parseNamespaces(String csv) {
        if (csv == null || csv.isBlank()) {
            return Set.of();
        }
        return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
    }

    static Duration parseDuration(String text) {
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(new OperatorMain()), "--lease-duration: " + e.getMessage());
        }
    }

    private static String identity() {
        String pod = System.getenv("POD_NAME");
        if (pod != null && !pod.isBlank()) {
            return pod;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "lm-warden-operator-" + ProcessHandle.current().pid();
        }
    }
}
