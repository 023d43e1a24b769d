package io.lmwarden.e2e.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * The simulator jar in its own process, each replica on a port it bound itself ({@code --port 0}) and reported on a
 * line of its own ("sim-i url"): no port is chosen before it is bound, so another process cannot take it meanwhile.
 */
public record SimulatorJar(JarProcess process, List<String> urls) implements AutoCloseable {

    private static final Pattern REPLICA_LINE = Pattern.compile("(sim-\\d+) (http://\\S+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /** Starts {@code replicas} replicas with these further flags (no {@code --port}) and waits until each answers. */
    public static SimulatorJar start(int replicas, List<String> flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("--replicas", Integer.toString(replicas), "--port", "0", "--host", "127.0.0.1"));
        args.addAll(flags);
        JarProcess process = JarProcess.start("lmw.sim.jar", args, Map.of());
        try {
            List<String> urls = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                MatchResult line = process.awaitLine(REPLICA_LINE, START_TIMEOUT);
                if (!line.group(1).equals("sim-" + i)) {
                    throw new IllegalStateException("expected sim-" + i + ", the simulator reported " + line.group() + ":\n" + process.output());
                }
                urls.add(line.group(2));
            }
            for (String url : urls) {
                process.awaitHttp200(url + "/health", START_TIMEOUT);
            }
            return new SimulatorJar(process, List.copyOf(urls));
        } catch (Exception | Error e) {
            process.close();
            throw e;
        }
    }

    /** Replica i's base URL, {@code http://127.0.0.1:port}. */
    public String url(int replica) {
        return urls.get(replica);
    }

    public int port(int replica) {
        return java.net.URI.create(url(replica)).getPort();
    }

    public String output() {
        return process.output();
    }

    @Override
    public void close() {
        process.close();
    }
}
