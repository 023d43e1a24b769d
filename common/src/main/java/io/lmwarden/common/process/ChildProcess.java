package io.lmwarden.common.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process this JVM starts and owns, for the tests and the load tools: a JVM on this JVM's classpath, a jar, or
 * any binary. Its output (stdout and stderr together) is read on a thread of its own, so its pipe never fills, and
 * written to a log file; lines are kept for {@link #awaitLine} (the most recent {@value #LINES_KEPT}). {@link #close}
 * stops it gracefully (SIGTERM), then kills it (SIGKILL) when it has not ended within the grace period; it is also
 * stopped when this JVM exits.
 */
public final class ChildProcess implements AutoCloseable {

    /** Output lines waiting for {@link #awaitLine} at most; older ones are dropped (they are in the log). */
    static final int LINES_KEPT = 10_000;
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final Path log;
    private final boolean deleteLog;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>(LINES_KEPT);
    private final Thread shutdownHook;
    private final Thread reader;
    private volatile boolean stopped;

    private ChildProcess(String name, Process process, Path log, boolean deleteLog) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.deleteLog = deleteLog;
        this.shutdownHook = new Thread(() -> process.toHandle().destroy(), name + "-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        this.reader = new Thread(this::readOutput, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code java [jvmOptions] -cp <this JVM's classpath> mainClass}: the simulator, the router or a tool in a JVM of its own. */
    public static Builder jvm(String mainClass, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        return new Builder(cmd, simpleName(mainClass));
    }

    /** {@code java [jvmOptions] -jar jar}: one of the shipped jars. */
    public static Builder jar(Path jar, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", jar.toString()));
        return new Builder(cmd, jar.getFileName().toString());
    }

    /** Any program: {@code binary} and its first arguments. */
    public static Builder command(List<String> command) {
        return new Builder(new ArrayList<>(command), Path.of(command.get(0)).getFileName().toString());
    }

    /** This JVM's own {@code java}. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Runs a short command to its end and returns its output (stdout and stderr, trimmed).
     *
     * @param stdin written to the command's input, then closed; null for none
     */
    public static Result run(List<String> command, String stdin, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " did not finish in " + timeout);
            }
            return new Result(p.exitValue(), out.strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A finished command: its exit status and its output. */
    public record Result(int exitValue, String output) {
    }

    /** How to start one. */
    public static final class Builder {
        private final List<String> command;
        private String name;
        private final Map<String, String> env = new HashMap<>();
        private Path log;

        private Builder(List<String> command, String name) {
            this.command = command;
            this.name = name;
        }

        /** Names its threads and messages; its log is {@code <name>.log} in a temporary directory unless {@link #log} says where. */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder args(List<String> args) {
            command.addAll(args);
            return this;
        }

        public Builder env(Map<String, String> variables) {
            env.putAll(variables);
            return this;
        }

        /** Keeps its output in this file (kept after it ends); by default a temporary file deleted on {@link #close}. */
        public Builder log(Path file) {
            this.log = file;
            return this;
        }

        public ChildProcess start() {
            try {
                Path file = log != null ? log : Files.createTempFile("lmw-" + name + "-", ".log");
                ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
                pb.environment().putAll(env);
                return new ChildProcess(name, pb.start(), file, log == null);
            } catch (IOException e) {
                throw new IllegalStateException("cannot start " + name + " (" + String.join(" ", command) + "): " + e.getMessage(), e);
            }
        }
    }

    private void readOutput() {
        try (InputStream raw = process.getInputStream();
             BufferedReader in = new BufferedReader(new InputStreamReader(raw, StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                while (!lines.offer(line)) {
                    lines.poll();
                }
            }
        } catch (IOException e) {
            // The process ended, or its log cannot be written: nothing more to read either way.
        }
    }

    /**
     * The first output line not consumed yet that matches, waiting up to {@code timeout}; the lines before it are
     * consumed too (and echoed to stderr when {@code echo}).
     *
     * @throws IllegalStateException when the process ends or the time runs out first, with its last output
     */
    public String awaitLine(Predicate<String> match, Duration timeout, boolean echo) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    if (!process.isAlive()) {
                        // Ended: its last lines may still be on their way through the reader thread (a loaded machine
                        // runs it late). Only once the reader reached the end of the output is a missing line missing.
                        reader.join(STOP_GRACE.toMillis());
                        if (lines.isEmpty()) {
                            throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
                        }
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
        throw new IllegalStateException(name + ": no matching output line within " + timeout + ":\n" + tail());
    }

    /** Output lines not consumed yet. */
    public List<String> drainLines() {
        List<String> out = new ArrayList<>();
        lines.drainTo(out);
        return out;
    }

    /** Everything it has written so far. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private String tail() {
        String all = output();
        return all.length() > 4000 ? "…" + all.substring(all.length() - 4000) : all;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Waits for it to end by itself; returns its exit status. */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " still running after " + timeout);
            }
            // Its last lines are in the log before anyone reads it.
            reader.join(STOP_GRACE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return process.exitValue();
    }

    /** Sends a signal by name ({@code STOP}, {@code CONT}, …) through {@code kill}. */
    public void signal(String signal) {
        run(List.of("kill", "-" + signal, Long.toString(process.pid())), null, Duration.ofSeconds(5));
        if (signal.equals("STOP") || signal.equals("CONT")) {
            stopped = signal.equals("STOP");
        }
    }

    /** SIGKILL: no shutdown hook runs, its connections are reset by the kernel; returns its exit status once it is gone. */
    public int kill() {
        process.destroyForcibly();
        return waitFor(STOP_GRACE);
    }

    /** SIGTERM, then SIGKILL after the grace period; a frozen process (SIGSTOP) is thawed first so that it can end. */
    @Override
    public void close() {
        if (process.isAlive()) {
            if (stopped) {
                signal("CONT");
            }
            // SIGTERM through its handle: Process.destroy() would also close its output, and its last lines would be lost.
            process.toHandle().destroy();
            try {
                if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
                reader.join(STOP_GRACE.toMillis());
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // This JVM is shutting down: the hook runs anyway.
        }
        if (deleteLog) {
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                // a temporary file left behind is harmless
            }
        }
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
