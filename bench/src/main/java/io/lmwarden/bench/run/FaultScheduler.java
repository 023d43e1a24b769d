package io.lmwarden.bench.run;

import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.workload.ScheduledFault;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Fires a variant's scheduled faults at their workload times from the variant's start, on a thread of its own
 * (a kill waits for the replica's server to close), and prints each as it happens.
 */
final class FaultScheduler {
    private final VariantTarget target;
    private final List<ScheduledFault> faults;
    private final TimeScale clock;
    private final PrintStream progress;
    private ScheduledExecutorService timer;

    FaultScheduler(VariantTarget target, List<ScheduledFault> faults, TimeScale clock, PrintStream progress) {
        this.target = target;
        this.faults = faults;
        this.clock = clock;
        this.progress = progress;
    }

    void start() {
        if (faults.isEmpty()) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lmw-bench-faults");
            t.setDaemon(true);
            return t;
        });
        for (ScheduledFault f : faults) {
            timer.schedule(() -> progress.println("  fault " + f.describe() + ": " + target.inject(f)),
                    clock.wallMillis(f.at()), TimeUnit.MILLISECONDS);
        }
    }

    void cancel() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
