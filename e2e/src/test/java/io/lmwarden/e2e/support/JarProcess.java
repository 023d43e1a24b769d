package io.lmwarden.e2e.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One of our shipped jars running as its own process, with its output in a file for the report. */
public final class JarProcess implements AutoCloseable {

    private final Process process;
    private final Path log;

    private JarProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    public static JarProcess start(String jarProperty, List<String> args, Map<String, String> env) throws IOException {
        String jar = System.getProperty(jarProperty);
        if (jar == null || !Files.exists(Path.of(jar))) {
            throw new IllegalStateException("jar not built: system property " + jarProperty + " = " + jar
                    + " (run through 'mvn verify' so the module's package phase has run)");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-jar");
        cmd.add(jar);
        cmd.addAll(args);
        Path log = Files.createTempFile("lmw-" + Path.of(jar).getFileName(), ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new JarProcess(pb.start(), log);
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Waits until GET url answers 200, or fails with the process output. */
    public void awaitHttp200(String url, Duration timeout) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("process exited with " + process.exitValue() + ":\n" + output());
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

    /** kill -9: the process gets no chance to leave a cluster or finish its requests. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(java.util.concurrent.TimeUnit.SECONDS.toMillis(10), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
