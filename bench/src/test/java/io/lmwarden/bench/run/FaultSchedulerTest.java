package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaProbe;
import io.lmwarden.bench.pool.VariantTarget;
import io.lmwarden.bench.workload.ScheduledFault;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stage's end waits for the scheduled faults still running (a Day-2 operation outlasting the stage's wall time is
 * finished, not cut off), and only for those: the hang guard ends the wait and names what still runs.
 */
class FaultSchedulerTest {

    /** Long enough for any machine to start a fault's thread; only a hang guard of the test. */
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    /** A pool whose faults run until the test lets them end: what a rolling upgrade is to the scheduler. */
    private static final class HeldFaults implements VariantTarget {
        final CountDownLatch begun = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String url() {
            return "http://127.0.0.1:1";
        }

        @Override
        public ReplicaProbe probe() {
            throw new UnsupportedOperationException("the scheduler reads no counters");
        }

        @Override
        public String inject(ScheduledFault fault) {
            begun.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "done";
        }

        @Override
        public void close() {
        }
    }

    private static FaultScheduler scheduler(HeldFaults target, String fault) {
        return new FaultScheduler(target, List.of(ScheduledFault.parse(fault)), new TimeScale(10),
                new PrintStream(new ByteArrayOutputStream(), true));
    }

    @Test
    void theWaitLastsUntilARunningFaultHasEnded() throws Exception {
        HeldFaults target = new HeldFaults();
        FaultScheduler faults = scheduler(target, "kill replica 0 at 0s");
        faults.start();
        try {
            assertThat(target.begun.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("the fault began").isTrue();
            CompletableFuture<List<String>> wait = CompletableFuture.supplyAsync(() -> faults.awaitRunning(DEADLINE));
            // The fault still runs, so the wait cannot be over, however long this takes.
            Thread.sleep(50);
            assertThat(wait).as("the stage's end while the fault runs").isNotDone();
            target.release.countDown();
            assertThat(wait.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("faults still running").isEmpty();
        } finally {
            target.release.countDown();
            faults.cancel();
        }
    }

    @Test
    void aFaultNotYetBegunIsNotWaitedFor() {
        HeldFaults target = new HeldFaults();
        FaultScheduler faults = scheduler(target, "kill replica 0 at 1h");
        faults.start();
        try {
            // The wall-clock guard is the test's own deadline: returning at all, with nothing running, is the claim.
            assertThat(faults.awaitRunning(DEADLINE)).isEmpty();
            assertThat(target.begun.getCount()).as("the fault fired").isEqualTo(1);
        } finally {
            faults.cancel();
        }
    }

    @Test
    void theHangGuardEndsTheWaitAndNamesTheFaultStillRunning() throws Exception {
        HeldFaults target = new HeldFaults();
        FaultScheduler faults = scheduler(target, "kill replica 0 at 0s");
        faults.start();
        try {
            assertThat(target.begun.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("the fault began").isTrue();
            assertThat(faults.awaitRunning(Duration.ofMillis(20))).containsExactly("kill replica 0 at 0.0s");
        } finally {
            target.release.countDown();
            faults.cancel();
        }
    }
}
