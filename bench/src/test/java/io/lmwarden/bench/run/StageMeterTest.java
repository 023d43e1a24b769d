package io.lmwarden.bench.run;

import io.lmwarden.bench.metrics.ReplicaReading;
import io.lmwarden.bench.report.StageResult;
import io.lmwarden.bench.report.ClassFigures;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class StageMeterTest {

    private static StepRecord step(int session, int step, long sent, long first, int output, Boolean stayed, boolean last,
                                   String error) {
        return new StepRecord(session, step, sent, first, first + 1_000_000, "r0", "STICKY", output, 1000, 500, 800,
                stayed, last, error, sent - 50_000_000L, 0, false, "");
    }

    @Test
    void sessionTimeRunsFromTheFirstStepToTheLastAndQueueWaitsCountOnlyQueuedSteps() {
        TimeScale clock = new TimeScale(10);
        long s = 1_000_000_000L;
        List<StepRecord> steps = List.of(
                // session 0 began 2 s (wall) before its last step was sent, ended 1 ms after its first token: 2.011 s wall
                new StepRecord(0, 6, 3 * s, 3 * s + 10_000_000L, 3 * s + 11_000_000L, "r0", "STICKY", 10, 1000, 900, 900,
                        true, true, null, s, 0, false, ""),
                // a first step that waited 0.5 s (wall) in the router's queue
                new StepRecord(1, 1, 3 * s, 4 * s, 4 * s + 1, "r1", "NEW", 10, 1000, 0, 0, null, false, null, 3 * s, s / 2, false, ""),
                // a step the router turned away
                new StepRecord(2, 1, 3 * s, 0, 4 * s, null, null, 0, 1000, -1, 0, null, false, "HTTP 529", 3 * s, 0, true, ""));
        StageResult r = StageMeter.measure("p", 3, 1, 60, clock, steps, List.of(), List.of(), List.of(), 0.5);
        assertThat(r.sessionTimeP50()).isCloseTo(20.11, within(0.05));
        assertThat(r.queueWaitP50()).isCloseTo(5.0, within(0.01));
        assertThat(r.queueWaitMax()).isCloseTo(5.0, within(0.01));
        assertThat(r.admitted()).isEqualTo(2);
        assertThat(r.queued()).isEqualTo(1);
        assertThat(r.rejected()).isEqualTo(1);
        assertThat(r.errors()).isEqualTo(1);
    }

    @Test
    void prefixHitsAreTokenWeightedOverReplicas() {
        // replica a: 100 queries, 90 hits (90%); replica b: 900 queries, 0 hits. Token-weighted: 9%, not 45%.
        List<ReplicaReading> before = List.of(new ReplicaReading("a", 0, 0, 1000, 500, 0), new ReplicaReading("b", 0, 0, 0, 0, 0));
        List<ReplicaReading> after = List.of(new ReplicaReading("a", 0, 0, 1100, 590, 0), new ReplicaReading("b", 0, 0, 900, 0, 0));
        assertThat(StageMeter.hitPct(before, after)).isCloseTo(9.0, within(1e-9));
    }

    @Test
    void aCounterThatWentDownWasResetAndCountsFromZero() {
        List<ReplicaReading> before = List.of(new ReplicaReading("a", 0, 0, 5000, 0, 0));
        List<ReplicaReading> after = List.of(new ReplicaReading("a", 0, 0, 300, 0, 0));
        assertThat(StageMeter.delta(before, after, ReplicaReading::prefixCacheQueries)).isEqualTo(300);
    }

    @Test
    void wallTimesAreScaledToWorkloadTimeAndColumnsComputed() {
        TimeScale clock = new TimeScale(20);
        // TTFB on the wall: 10 ms and 100 ms -> workload 0.2 s and 2 s
        List<StepRecord> steps = List.of(
                step(0, 1, 0, 10_000_000, 256, null, false, null),
                step(0, 2, 0, 100_000_000, 256, true, true, null),
                step(1, 2, 0, 0, 0, null, false, "HTTP 503"),
                step(2, 2, 0, 50_000_000, 128, false, false, null));
        StageResult r = StageMeter.measure("affinity", 4, 1, 60, clock, steps,
                List.of(new ReplicaReading("a", 0, 0, 0, 0, 0)), List.of(new ReplicaReading("a", 0, 0, 1000, 250, 640)),
                List.of(2, 3, 3, 4), 0.5);
        assertThat(r.ttfbP50()).isCloseTo(1.0, within(0.01));
        assertThat(r.ttfbP95()).isCloseTo(2.0, within(0.01));
        assertThat(r.outputTokensPerMin()).isEqualTo(640);
        assertThat(r.sessionsPerHour()).isEqualTo(60);
        assertThat(r.replicasBusy()).isEqualTo(3.0);
        assertThat(r.prefixHitPct()).isEqualTo(25.0);
        assertThat(r.stayedPct()).isEqualTo(50.0);
        assertThat(r.oracleHitPct()).isEqualTo(80.0);
        assertThat(r.clientCachedPct()).isEqualTo(50.0);
        assertThat(r.engineOutputTokensPerMin()).isEqualTo(640);
        assertThat(r.errors()).isEqualTo(1);
        assertThat(r.steps()).isEqualTo(4);
        assertThat(r.benchCpuCores()).isEqualTo(0.5);
    }

    @Test
    void oracleCountsWholeBlocksAndNeverTheLastToken() {
        assertThat(OracleBound.followUp(1000, 700, 256)).isEqualTo(944);
        assertThat(OracleBound.followUp(960, 700, 300)).isEqualTo(944);
        assertThat(OracleBound.firstStep(11000, 3500, false)).isZero();
        assertThat(OracleBound.firstStep(11000, 3500, true)).isEqualTo(3488);
    }

    @Test
    void severalClassesGetTheirOwnFiguresAndOneClassGetsNone() {
        TimeScale clock = new TimeScale(10);
        long s = 1_000_000_000L;
        List<StepRecord> steps = List.of(
                // short: a cached follow-up that stayed (TTFB 0.01 s wall) and a failed step
                new StepRecord(0, 2, s, s + 10_000_000L, 2 * s, "r0", "STICKY", 10, 1000, 900, 900, true, true, null, 0, 0, false, "short"),
                new StepRecord(1, 1, s, 0, 2 * s, null, null, 0, 1000, -1, 0, null, false, "stream cut", 0, 0, false, "short"),
                // long: a cold follow-up that moved (TTFB 0.2 s wall)
                new StepRecord(2, 3, s, s + 200_000_000L, 2 * s, "r1", "NEW", 10, 2000, 0, 1800, false, false, null, 0, 0, false, "long"));
        StageResult r = StageMeter.measure("p", 2, 1, 60, clock, steps, List.of(), List.of(), List.of(), 0.5);
        assertThat(r.classes()).extracting(ClassFigures::name).containsExactly("short", "long");
        ClassFigures shortOnes = r.classes().get(0);
        assertThat(shortOnes.steps()).isEqualTo(2);
        assertThat(shortOnes.errors()).isEqualTo(1);
        assertThat(shortOnes.ttfbP50()).isCloseTo(0.1, within(0.001));
        assertThat(shortOnes.cachedPct()).isCloseTo(90.0, within(0.01));
        assertThat(shortOnes.stayedPct()).isEqualTo(100.0);
        ClassFigures longOnes = r.classes().get(1);
        assertThat(longOnes.errors()).isZero();
        assertThat(longOnes.ttfbP50()).isCloseTo(2.0, within(0.01));
        assertThat(longOnes.cachedPct()).isZero();
        assertThat(longOnes.stayedPct()).isZero();

        StageResult single = StageMeter.measure("p", 2, 1, 60, clock, List.of(steps.get(0)), List.of(), List.of(), List.of(), 0.5);
        assertThat(single.classes()).isEmpty();
    }
}
