package io.lmwarden.bench.run;

import io.lmwarden.bench.pool.PoolEvents;
import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.workload.ScheduledFault;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Fires a variant's scheduled faults at their workload times from the variant's start, each on a thread of its own (a
 * kill waits for the replica's server to close; a rolling upgrade takes minutes, and a fault scheduled during it still
 * fires on time), and prints each as it happens. Day-2 operations record their phases in {@link #events()}. A stage
 * that ends while a fault runs waits for it ({@link #awaitRunning}): its figures then describe the whole operation, not
 * the half a stage's wall time happened to leave it (a process restart costs wall time the time scale does not compress).
 */
final class FaultScheduler {
    private final VariantTarget target;
    private final List<ScheduledFault> faults;
    private final TimeScale clock;
    private final PrintStream progress;
    private ScheduledExecutorService timer;
    private PoolEvents events;
    /** The faults that have begun and not yet ended, by {@link ScheduledFault#describe()}; guarded by {@code this}. */
    private final List<String> running = new ArrayList<>();

    FaultScheduler(VariantTarget target, List<ScheduledFault> faults, TimeScale clock, PrintStream progress) {
        this.target = target;
        this.faults = faults;
        this.clock = clock;
        this.progress = progress;
    }

    /** The variant starts now: faults are timed from here, and so are the pool's events. */
    void start() {
        events = new PoolEvents(System.nanoTime(), clock.factor(), progress);
        if (faults.isEmpty()) {
            return;
        }
        timer = Executors.newScheduledThreadPool(faults.size(), r -> {
            Thread t = new Thread(r, "lmw-bench-faults");
            t.setDaemon(true);
            return t;
        });
        for (ScheduledFault f : faults) {
            timer.schedule(() -> run(f), clock.wallMillis(f.at()), TimeUnit.MILLISECONDS);
        }
    }

    private void run(ScheduledFault f) {
        began(f.describe());
        try {
            progress.println("  fault " + f.describe() + ": " + target.inject(f, events));
        } catch (RuntimeException e) {
            progress.println("  fault " + f.describe() + " failed: " + e);
        } finally {
            ended(f.describe());
        }
    }

    private synchronized void began(String fault) {
        running.add(fault);
    }

    private synchronized void ended(String fault) {
        running.remove(fault);
        notifyAll();
    }

    /**
     * Blocks while a scheduled fault runs (one that begins meanwhile too), for at most {@code guard} of wall time: the
     * guard only turns a hung operation into a stage that ends without it.
     *
     * @return the faults still running when the guard ran out (empty: none runs now)
     */
    synchronized List<String> awaitRunning(Duration guard) {
        long deadline = System.nanoTime() + guard.toNanos();
        long left;
        while (!running.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for scheduled faults", e);
            }
        }
        return List.copyOf(running);
    }

    /** What Day-2 operations did to the pool so far (empty before {@link #start}). */
    List<PoolEvents.Event> events() {
        return events == null ? List.of() : events.events();
    }

    /** When the variant started (System.nanoTime), the origin of every fault's and event's time; call after {@link #start}. */
    long startNanos() {
        return events.startNanos();
    }

    void cancel() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
