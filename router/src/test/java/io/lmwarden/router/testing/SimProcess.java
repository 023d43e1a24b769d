package io.lmwarden.router.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A simulated replica in its own JVM, for faults that need a real process: {@code kill -9} and
 * {@code SIGSTOP}/{@code SIGCONT} (a frozen engine whose socket still accepts connections).
 */
public final class SimProcess implements AutoCloseable {

    private final Process process;
    private final String url;

    private SimProcess(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    public static SimProcess start(String profile, double timeScale, int seed) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "io.lmwarden.sim.SimMain", "--port", "0", "--profile", profile, "--time-scale", String.valueOf(timeScale),
                "--seed", String.valueOf(seed)));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                int at = line.indexOf("http://");
                if (line.startsWith("sim-") && at > 0) {
                    String url = line.substring(at).trim();
                    Thread drain = new Thread(() -> {
                        try {
                            while (out.readLine() != null) {
                                // keep the pipe from filling
                            }
                        } catch (IOException e) {
                            // process gone
                        }
                    }, "sim-process-output");
                    drain.setDaemon(true);
                    drain.start();
                    return new SimProcess(p, url);
                }
            }
            p.destroyForcibly();
            throw new IllegalStateException("simulator process printed no URL");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public String url() {
        return url;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown hook, open connections reset by the kernel. */
    public void kill9() {
        signal("KILL");
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void freeze() {
        signal("STOP");
    }

    public void thaw() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            thaw();
            process.destroyForcibly();
        }
    }
}
