package io.lmwarden.router.testing;

import io.lmwarden.common.process.ChildProcess;

import java.time.Duration;
import java.util.List;

/**
 * A simulated replica in its own JVM ({@link ChildProcess}), for faults that need a real process: {@code kill -9}
 * and {@code SIGSTOP}/{@code SIGCONT} (a frozen engine whose socket still accepts connections).
 */
public final class SimProcess implements AutoCloseable {

    private final ChildProcess process;
    private final String url;

    private SimProcess(ChildProcess process, String url) {
        this.process = process;
        this.url = url;
    }

    public static SimProcess start(String profile, double timeScale, int seed) {
        ChildProcess p = ChildProcess.jvm("io.lmwarden.sim.SimMain", List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"))
                .name("sim-process-" + seed)
                .args(List.of("--port", "0", "--profile", profile, "--time-scale", String.valueOf(timeScale), "--seed", String.valueOf(seed)))
                .start();
        try {
            String line = p.awaitLine(l -> l.startsWith("sim-") && l.indexOf("http://") > 0, Duration.ofSeconds(60), false);
            return new SimProcess(p, line.substring(line.indexOf("http://")).trim());
        } catch (IllegalStateException e) {
            p.kill();
            p.close();
            throw e;
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
        process.kill();
    }

    public void freeze() {
        process.signal("STOP");
    }

    public void thaw() {
        process.signal("CONT");
    }

    @Override
    public void close() {
        process.close();
    }
}
