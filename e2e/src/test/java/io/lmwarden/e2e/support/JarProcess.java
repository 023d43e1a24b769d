package io.lmwarden.e2e.support;

import io.lmwarden.common.net.LoopbackPorts;
import io.lmwarden.common.process.ChildProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One of our shipped jars running as its own process ({@link ChildProcess}), with its output in a file for the report. */
public final class JarProcess implements AutoCloseable {

    private final ChildProcess process;

    private JarProcess(ChildProcess process) {
        this.process = process;
    }

    public static JarProcess start(String jarProperty, List<String> args, Map<String, String> env) throws IOException {
        String jar = System.getProperty(jarProperty);
        if (jar == null || !Files.exists(Path.of(jar))) {
            throw new IllegalStateException("jar not built: system property " + jarProperty + " = " + jar
                    + " (run through 'mvn verify' so the module's package phase has run)");
        }
        Path log = Files.createTempFile("lmw-" + Path.of(jar).getFileName(), ".log");
        return new JarProcess(ChildProcess.jar(Path.of(jar), List.of("-Xmx256m")).args(args).env(env).log(log).start());
    }

    public static int freePort() {
        return LoopbackPorts.free();
    }

    /** Waits until GET url answers 200, or fails with the process output. */
    public void awaitHttp200(String url, Duration timeout) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.alive()) {
                throw new IllegalStateException("process exited with " + process.waitFor(Duration.ofSeconds(10)) + ":\n" + output());
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(url + " did not answer 200 within " + timeout + ":\n" + output());
    }

    /**
     * The next output line that matches {@code pattern} as a whole (the lines before it are skipped), e.g. the port a
     * process started with {@code --port 0} reports it bound; fails with the process output when it exits first or the
     * time runs out.
     */
    public MatchResult awaitLine(Pattern pattern, Duration timeout) {
        Matcher m = pattern.matcher(process.awaitLine(line -> pattern.matcher(line).matches(), timeout, false));
        m.matches(); // it does (that is why awaitLine returned it); this fills the groups
        return m.toMatchResult();
    }

    /** kill -9: the process gets no chance to leave a cluster or finish its requests. */
    public void kill() {
        process.kill();
    }

    public String output() {
        return process.output();
    }

    /** SIGTERM, then SIGKILL after a grace period: a router drains and logs its shutdown. */
    @Override
    public void close() {
        process.close();
    }
}
