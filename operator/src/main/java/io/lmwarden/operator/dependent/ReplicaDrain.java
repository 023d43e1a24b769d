package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a replica pod goes (rolling update, scale-down, node drain): its deletion turns its EndpointSlice
 * endpoint {@code terminating}, the routers stop placing sessions on it, and its {@code preStop} waits until
 * the engine has no request running or waiting ({@code vllm:num_requests_running} + {@code
 * vllm:num_requests_waiting} = 0 on {@link #QUIET_READS} reads in a row), at most {@code drainTimeout}. Only
 * then does the kubelet send SIGTERM. The pod's grace period is the drain timeout plus the engine's own
 * shutdown time, so the kubelet never kills a replica that is still draining.
 *
 * <p>vLLM pods run the wait in Python (the vLLM image has python3); simulated replicas run the same wait
 * from the simulator jar ({@code io.lmwarden.sim.AwaitIdle}), both with the same flags.
 */
public final class ReplicaDrain {
    /** Time for the routers to see the endpoint terminating before the engine's queue is read. */
    public static final int SETTLE_SECONDS = 5;
    public static final int QUIET_READS = 3;
    public static final int INTERVAL_SECONDS = 1;
    /** vLLM's own shutdown after SIGTERM (engine processes, NCCL teardown). */
    static final long VLLM_SHUTDOWN_SECONDS = 30;
    static final long SIMULATOR_SHUTDOWN_SECONDS = 10;
    static final String AWAIT_IDLE_CLASS = "io.lmwarden.sim.AwaitIdle";
    private static final String SCRIPT = script();

    private ReplicaDrain() {
    }

    /** The vLLM container's preStop: {@code python3 -c <await-idle.py> <flags>}. */
    public static List<String> vllmPreStop(int port, Duration drainTimeout) {
        List<String> command = new ArrayList<>(List.of("python3", "-c", SCRIPT));
        command.addAll(flags(port, drainTimeout));
        return List.copyOf(command);
    }

    /** The simulator container's preStop: a small JVM running {@code AwaitIdle} from the simulator jar. */
    public static List<String> simulatorPreStop(String simulatorJar, int port, Duration drainTimeout) {
        List<String> command = new ArrayList<>(List.of("java", "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData", "-cp", simulatorJar, AWAIT_IDLE_CLASS));
        command.addAll(flags(port, drainTimeout));
        return List.copyOf(command);
    }

    /** The wait's flags, shared by both implementations. */
    static List<String> flags(int port, Duration drainTimeout) {
        return List.of(
                "--metrics-url", "http://127.0.0.1:" + port + "/metrics",
                "--settle-seconds", Integer.toString(SETTLE_SECONDS),
                "--quiet-reads", Integer.toString(QUIET_READS),
                "--interval-seconds", Integer.toString(INTERVAL_SECONDS),
                "--deadline-seconds", Long.toString(drainTimeout.toSeconds()));
    }

    static Lifecycle preStop(List<String> command) {
        return new LifecycleBuilder().withNewPreStop().withNewExec().withCommand(command).endExec().endPreStop().build();
    }

    /** Above the drain: the preStop's own deadline, then the engine's shutdown after SIGTERM. */
    static long gracePeriodSeconds(Duration drainTimeout, long shutdownSeconds) {
        return drainTimeout.toSeconds() + shutdownSeconds;
    }

    private static String script() {
        try (InputStream in = ReplicaDrain.class.getResourceAsStream("await-idle.py")) {
            if (in == null) {
                throw new IllegalStateException("await-idle.py is missing from the operator jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
