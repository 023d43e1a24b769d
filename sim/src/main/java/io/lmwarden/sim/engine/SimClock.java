package io.lmwarden.sim.engine;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Simulated (workload) time: wall time since start multiplied by the time scale. */
public final class SimClock {
    private final long startNanos = System.nanoTime();
    private final double timeScale;

    public SimClock(double timeScale) {
        this.timeScale = timeScale;
    }

    public double timeScale() {
        return timeScale;
    }

    /** Simulated seconds since start. */
    public double now() {
        return (System.nanoTime() - startNanos) * timeScale / 1e9;
    }

    /** Wall nanoseconds from now until simulated time reaches {@code simSeconds} (negative when it has). */
    public long wallNanosUntil(double simSeconds) {
        return startNanos + (long) (simSeconds / timeScale * 1e9) - System.nanoTime();
    }

    /** Parks until the wall time at which simulated time reaches {@code simSeconds}, or {@code stop} says so. */
    public void sleepUntil(double simSeconds, BooleanSupplier stop) {
        long deadline = startNanos + (long) (simSeconds / timeScale * 1e9);
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0 && !stop.getAsBoolean()) {
            LockSupport.parkNanos(remaining);
        }
    }
}
