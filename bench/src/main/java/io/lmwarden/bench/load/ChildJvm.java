package io.lmwarden.bench.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM of its own on this machine's classpath: the load tools put the simulator, the router and the
 * clients in separate processes so each has its own file-descriptor limit (one process could not hold
 * both ends of 10,000 loopback connections under {@code ulimit -n} 20,000). Its output lines are kept
 * for {@link #awaitLine} and copied to {@code <name>.log} in the working directory; it is killed on
 * {@link #close} or when this JVM exits.
 */
final class ChildJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 PrintWriter log = new PrintWriter(Files.newBufferedWriter(Path.of(name + ".log"), StandardCharsets.UTF_8), true)) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    log.println(line);
                }
            } catch (IOException e) {
                // The process ended.
            }
        }, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(String name, String heap, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError", "-Xlog:gc:file=" + name + "-gc.log", "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(args);
        try {
            return new ChildJvm(name, new ProcessBuilder(cmd).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + name + ": " + e.getMessage(), e);
        }
    }

    /** The first output line that matches, waiting up to {@code timeoutMs}; other lines are echoed when {@code echo}. */
    String awaitLine(Predicate<String> match, long timeoutMs, boolean echo) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    if (!process.isAlive() && lines.isEmpty()) {
                        throw new IllegalStateException(name + " exited with " + process.exitValue());
                    }
                    continue;
                }
                if (match.test(line)) {
                    return line;
                }
                if (echo) {
                    System.err.println("[" + name + "] " + line);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException(name + ": no matching output line within " + timeoutMs + " ms");
    }

    /** URLs printed as {@code <id> http://…} (the simulator) or {@code … on http://…} (the router). */
    static String urlIn(String line) {
        int at = line.indexOf("http://");
        int end = line.indexOf(' ', at);
        return end < 0 ? line.substring(at) : line.substring(at, end);
    }

    long pid() {
        return process.pid();
    }

    /** Waits for the process to end by itself. */
    int waitFor(long timeoutMs) throws InterruptedException {
        if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " still running after " + timeoutMs + " ms");
        }
        return process.exitValue();
    }

    /** Output lines not yet consumed. */
    List<String> drain() {
        List<String> out = new ArrayList<>();
        lines.drainTo(out);
        return out;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
