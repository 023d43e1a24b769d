package io.lmwarden.bench.pool;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What Day-2 operations did to a variant's pool and when, in workload seconds from the variant's start (the clock
 * scheduled faults use): a replica drained, stopped, started, ready again; a router out of the bench's rotation, shut
 * down, back. Each phase is printed as it happens and kept for the report's timeline.
 */
public final class PoolEvents {

    /** An operation on the pool began ({@code subject}: what it acts on, e.g. "upgrade replicas"). */
    public static final String BEGIN = "begin";
    /** It ended: every replica or router it touched is back, or gone for good. */
    public static final String END = "end";
    public static final String DRAINING = "draining";
    public static final String DRAINED = "drained";
    public static final String STOPPED = "stopped";
    public static final String STARTED = "started";
    /** The router reports the replica ready, or a router is back in the bench's rotation: it takes new work. */
    public static final String READY = "ready";
    public static final String TERMINATING = "terminating";
    public static final String OUT_OF_ROTATION = "out of rotation";

    /** One phase: when (workload seconds from the variant's start), of what, and what the progress line said. */
    public record Event(double atSeconds, String subject, String phase, String detail) {
    }

    private final long startNanos;
    private final double timeScale;
    private final PrintStream progress;
    private final List<Event> events = new ArrayList<>();

    /** @param startNanos the variant's start (System.nanoTime), from which scheduled faults are timed */
    public PoolEvents(long startNanos, double timeScale, PrintStream progress) {
        this.startNanos = startNanos;
        this.timeScale = timeScale;
        this.progress = progress;
    }

    /** The variant's start (System.nanoTime). */
    public long startNanos() {
        return startNanos;
    }

    /** Workload seconds since the variant's start. */
    public double now() {
        return seconds(System.nanoTime());
    }

    /** A wall-clock instant (System.nanoTime) in workload seconds from the variant's start. */
    public double seconds(long nanos) {
        return (nanos - startNanos) / 1e9 * timeScale;
    }

    /** A workload duration on the wall clock. */
    public long wallMillis(Duration workload) {
        return Math.max(1, (long) (workload.toMillis() / timeScale));
    }

    public double timeScale() {
        return timeScale;
    }

    public void record(String subject, String phase, String detail) {
        Event e = new Event(now(), subject, phase, detail);
        synchronized (this) {
            events.add(e);
        }
        progress.println(String.format(Locale.ROOT, "  [t=%.1fs] %s %s%s", e.atSeconds(), subject, phase,
                detail == null || detail.isEmpty() ? "" : ": " + detail));
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Sleeps for a workload duration. */
    public void sleep(Duration workload) {
        try {
            Thread.sleep(wallMillis(workload));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
