package io.lmwarden.e2e.support;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The router jar in its own process on a port it bound itself ({@code --port 0}), read back from its start line:
 * no port is chosen before it is bound, so another process cannot take it meanwhile.
 */
public record RouterJar(JarProcess process, String url) implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("LM Warden router on (http://\\S+) .*");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /** Starts it with these flags (no {@code --port}) and environment; returns once it listens. */
    public static RouterJar start(List<String> flags, Map<String, String> env) throws IOException {
        List<String> args = new ArrayList<>(List.of("--port", "0"));
        args.addAll(flags);
        Map<String, String> environment = new HashMap<>(env);
        environment.put("LMW_LOG_FORMAT", "text"); // the start line, with the port, is the text format's
        JarProcess process = JarProcess.start("lmw.router.jar", args, environment);
        try {
            return new RouterJar(process, process.awaitLine(LISTENING, START_TIMEOUT).group(1));
        } catch (RuntimeException | Error e) {
            process.close();
            throw e;
        }
    }

    public String output() {
        return process.output();
    }

    @Override
    public void close() {
        process.close();
    }
}
