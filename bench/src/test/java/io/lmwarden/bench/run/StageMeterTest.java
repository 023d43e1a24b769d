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
                stayed, last, error, sent - 50_000_000L, 0, false, 0, "", 1);
    }

    private static StageResult measure(String policy, int sessions, TimeScale clock, List<StepRecord> steps,
                                       List<ReplicaReading> before, List<ReplicaReading> after, List<Integer> busy) {
        return StageMeter.measure(new StageWindow(policy, sessions, 1, sessions, 60, steps, before, after, busy, java.util.Map.of(),
                0.5, List.of(), 1, 3), clock);
    }

    @Test
    void sessionTimeRunsFromTheFirstStepToTheLastAndQueueWaitsCountOnlyQueuedSteps() {
        TimeScale clock = new TimeScale(10);
        long s = 1_000_000_000L;
        List<StepRecord> steps = List.of(
                // session 0 began 2 s (wall) before its last step was sent, ended 1 ms after its first token: 2.011 s wall
                new StepRecord(0, 6, 3 * s, 3 * s + 10_000_000L, 3 * s + 11_000_000L, "r0", "STICKY", 10, 1000, 900, 900,
                        true, true, null, s, 0, false, 0, "", 1),
                // a first step that waited 0.5 s (wall) in the router's queue
                new StepRecord(1, 1, 3 * s, 4 * s, 4 * s + 1, "r1", "NEW", 10, 1000, 0, 0, null, false, null, 3 * s, s / 2, false, 0, "", 1),
                // a step the router turned away
                new StepRecord(2, 1, 3 * s, 0, 4 * s, null, null, 0, 1000, -1, 0, null, false, "HTTP 529", 3 * s, 0, true, 0, "", 1));
        StageResult r = measure("p", 3, clock, steps, List.of(), List.of(), List.of());
        assertThat(r.sessionTimes().p50()).isCloseTo(20.11, within(0.05));
        assertThat(r.queue().waitP50()).isCloseTo(5.0, within(0.01));
        assertThat(r.queue().waitMax()).isCloseTo(5.0, within(0.01));
        assertThat(r.queue().admitted()).isEqualTo(2);
        assertThat(r.queue().queued()).isEqualTo(1);
        assertThat(r.queue().rejected()).isEqualTo(1);
        assertThat(r.errors().count()).isEqualTo(1);
    }

    @Test
    void sessionTimesAreMarkedCensoredWhenAnOlderSessionIsStillRunningAndLittlesLawCountsEveryone() {
        TimeScale clock = new TimeScale(1);
        long s = 1_000_000_000L;
        List<StepRecord> steps = List.of(
                // two sessions completed from their first step: 100 s and 300 s
                new StepRecord(0, 3, 90 * s, 99 * s, 100 * s, "r0", "STICKY", 10, 1000, 900, 900, true, true, null, 0, 0, false, 0, "", 1),
                new StepRecord(1, 3, 290 * s, 299 * s, 300 * s, "r0", "STICKY", 10, 1000, 900, 900, true, true, null, 0, 0, false, 0, "", 1),
                // one that joined mid-life (steady start): a completion, but its duration is not a session time
                new StepRecord(2, 9, 10 * s, 11 * s, 12 * s, "r1", "STICKY", 10, 1000, 900, 900, true, true, null, 0, 0, false, 0, "", 7),
                // rejected: a newcomer, and a step of a session in progress
                new StepRecord(3, 1, 3 * s, 0, 4 * s, null, null, 0, 1000, -1, 0, null, false, "HTTP 429", 3 * s, 0, true, 0, "", 1),
                new StepRecord(4, 5, 3 * s, 0, 4 * s, null, null, 0, 1000, -1, 0, null, false, "HTTP 429", 3 * s, 0, true, 0, "", 1));
        // 4 sessions in the system over 600 s, 3 completions: Little's law 800 s; one still running is 250 s old
        StageResult r = StageMeter.measure(new StageWindow("p", 4, 1, 4, 600, steps, List.of(), List.of(), List.of(), java.util.Map.of(),
                0.5, List.of(250.0, 20.0), 1, 3), clock);
        assertThat(r.sessionTimes().p50()).isCloseTo(100, within(0.5));
        assertThat(r.sessionTimes().p50AtLeast()).isTrue();
        assertThat(r.sessionTimes().p95()).isCloseTo(300, within(0.5));
        assertThat(r.sessionTimes().p95AtLeast()).isFalse();
        assertThat(r.sessionTimes().littlesLaw()).isCloseTo(800, within(1e-9));
        assertThat(r.sessionTimes().littlesLawAtLeast()).isFalse();
        // from the calls: 3 successful steps in 600 s, 3 calls per session -> 6 sessions/h -> 4 sessions take 2,400 s
        assertThat(r.throughput().sessionsPerHourFromCalls()).isCloseTo(6, within(1e-9));
        assertThat(r.sessionTimes().littlesLawFromCalls()).isCloseTo(2400, within(1e-9));
        assertThat(r.sessionTimes().unfinished()).isEqualTo(2);
        assertThat(r.sessionTimes().unfinishedAgeMax()).isEqualTo(250);
        assertThat(r.throughput().sessionsCompleted()).isEqualTo(3);
        assertThat(r.queue().rejected()).isEqualTo(2);
        assertThat(r.queue().rejectedInProgress()).isEqualTo(1);
        assertThat(r.queue().rejectedFirstSteps()).isEqualTo(1);

        StageResult none = StageMeter.measure(new StageWindow("p", 4, 1, 4, 600, List.of(), List.of(), List.of(), List.of(),
                java.util.Map.of(), 0.5, List.of(700.0), 1, 3), clock);
        assertThat(none.sessionTimes().littlesLaw()).isEqualTo(2400);
        assertThat(none.sessionTimes().littlesLawAtLeast()).isTrue();
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
        StageResult r = measure("affinity", 4, clock, steps,
                List.of(new ReplicaReading("a", 0, 0, 0, 0, 0)), List.of(new ReplicaReading("a", 0, 0, 1000, 250, 640)),
                List.of(2, 3, 3, 4));
        assertThat(r.latency().ttfbP50()).isCloseTo(1.0, within(0.01));
        assertThat(r.latency().ttfbP95()).isCloseTo(2.0, within(0.01));
        assertThat(r.throughput().outputTokensPerMin()).isEqualTo(640);
        assertThat(r.throughput().sessionsPerHour()).isEqualTo(60);
        assertThat(r.replicasBusy()).isEqualTo(3.0);
        assertThat(r.cache().prefixHitPct()).isEqualTo(25.0);
        assertThat(r.cache().stayedPct()).isEqualTo(50.0);
        assertThat(r.cache().oracleHitPct()).isEqualTo(80.0);
        assertThat(r.cache().clientCachedPct()).isEqualTo(50.0);
        assertThat(r.throughput().engineOutputTokensPerMin()).isEqualTo(640);
        assertThat(r.errors().count()).isEqualTo(1);
        assertThat(r.throughput().steps()).isEqualTo(4);
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
                new StepRecord(0, 2, s, s + 10_000_000L, 2 * s, "r0", "STICKY", 10, 1000, 900, 900, true, true, null, 0, 0, false, 0, "short", 1),
                new StepRecord(1, 1, s, 0, 2 * s, null, null, 0, 1000, -1, 0, null, false, "stream cut", 0, 0, false, 0, "short", 1),
                // long: a cold follow-up that moved (TTFB 0.2 s wall)
                new StepRecord(2, 3, s, s + 200_000_000L, 2 * s, "r1", "NEW", 10, 2000, 0, 1800, false, false, null, 0, 0, false, 0, "long", 1));
        StageResult r = measure("p", 2, clock, steps, List.of(), List.of(), List.of());
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

        StageResult single = measure("p", 2, clock, List.of(steps.get(0)), List.of(), List.of(), List.of());
        assertThat(single.classes()).isEmpty();
    }
}
