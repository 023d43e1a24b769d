package io.lmwarden.bench.run;

import io.lmwarden.bench.pool.PoolEvents;
import io.lmwarden.bench.report.Timeline;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The Day-2 timeline: windows, lost against cut, and the goal figures around an operation. */
class TimelineMeterTest {
    private static final TimeScale CLOCK = new TimeScale(10);

    /** A step that ended at {@code atSeconds} of workload time from the origin (0), on the wall clock at K = 10. */
    private static StepRecord step(double atSeconds, String replica, int output, int prompt, int cached, String error, boolean started,
                                   long queueWaitWallNanos, Boolean stayed) {
        long end = (long) (atSeconds / 10 * 1e9);
        long first = error == null || started ? end - 1_000_000 : 0;
        return new StepRecord(1, 2, end - 2_000_000, first, end, replica, "STICKY", output, prompt, cached, 0, stayed, false, error,
                0, queueWaitWallNanos, false, 0, "", 1);
    }

    @Test
    void windowsAndFiguresAroundARollout() {
        List<StepRecord> steps = new ArrayList<>();
        // Before (30–60 s): 1,000 output tokens per 30 s, 90 % cached.
        steps.add(step(40, "sim-0", 1000, 1000, 900, null, false, 0, true));
        // During (60–120 s): 500 per 30 s, 50 % cached, one step refused, one stream cut, one queued 2 s (0.2 s wall).
        steps.add(step(70, "sim-1", 500, 1000, 500, null, false, 200_000_000L, false));
        steps.add(step(75, null, 0, 1000, -1, "request failed: connection refused", false, 0, null));
        steps.add(step(80, "sim-1", 0, 1000, -1, "stream broken: reset", true, 0, null));
        steps.add(step(100, "sim-1", 500, 1000, 500, null, false, 0, true));
        // After the last Ready (120 s on): 88 % cached.
        steps.add(step(130, "sim-0", 800, 1000, 880, null, false, 0, true));
        List<PoolEvents.Event> events = List.of(new PoolEvents.Event(60, "upgrade replicas", PoolEvents.BEGIN, ""),
                new PoolEvents.Event(90, "sim-0", PoolEvents.STOPPED, ""),
                new PoolEvents.Event(120, "sim-0", PoolEvents.READY, ""),
                new PoolEvents.Event(120, "upgrade replicas", PoolEvents.END, ""));

        Timeline t = TimelineMeter.measure(steps, events, 0, (long) (3e9), (long) (18e9), CLOCK, Duration.ofSeconds(30));

        assertThat(t.windows()).extracting(Timeline.Window::fromSeconds).containsExactly(30.0, 60.0, 90.0, 120.0, 150.0);
        Timeline.Window second = t.windows().get(1);
        assertThat(second.steps()).isEqualTo(3);
        assertThat(second.lostBeforeFirstByte()).isEqualTo(1);
        assertThat(second.cutStreams()).isEqualTo(1);
        assertThat(second.queued()).isEqualTo(1);
        assertThat(second.moves()).isEqualTo(1);
        assertThat(second.stepsByReplica()).containsEntry("sim-1", 1).doesNotContainKey("sim-0");
        assertThat(second.queueWaitP95()).isCloseTo(2.0, within(0.01));

        Timeline.Figures f = t.figures();
        assertThat(f.lostBeforeFirstByte()).isEqualTo(1);
        assertThat(f.cutStreams()).isEqualTo(1);
        assertThat(f.operationStart()).isEqualTo(60);
        assertThat(f.lastReady()).isEqualTo(120);
        assertThat(f.tokensPerMinBefore()).isCloseTo(2000, within(0.1));
        assertThat(f.tokensPerMinDuring()).isCloseTo(1000, within(0.1));
        assertThat(f.tokensRatio()).isCloseTo(0.5, within(0.001));
        assertThat(f.hitPctBefore()).isCloseTo(90, within(0.01));
        assertThat(f.hitPctAfter()).isCloseTo(88, within(0.01));
        assertThat(f.afterSeconds()).isCloseTo(60, within(0.01));
        assertThat(f.hitPctChange()).isCloseTo(-2, within(0.01));
        assertThat(f.queueWaitP95Before()).isZero();
    }

    @Test
    void aScaleDownHasNoReadyAndItsFiguresRunToItsEnd() {
        List<StepRecord> steps = List.of(step(40, "sim-0", 600, 1000, 900, null, false, 0, true),
                step(70, "sim-0", 300, 1000, 900, null, false, 0, true));
        List<PoolEvents.Event> events = List.of(new PoolEvents.Event(60, "remove replica 3", PoolEvents.BEGIN, ""),
                new PoolEvents.Event(90, "remove replica 3", PoolEvents.END, ""));
        Timeline.Figures f = TimelineMeter.measure(steps, events, 0, (long) (3e9), (long) (12e9), CLOCK, Duration.ofSeconds(30)).figures();
        assertThat(f.lastReady()).isNaN();
        assertThat(f.operationEnd()).isEqualTo(90);
        assertThat(f.tokensPerMinDuring()).isCloseTo(600, within(0.1));
        assertThat(f.afterSeconds()).isCloseTo(30, within(0.01));
    }
}
