package io.lmwarden.bench.run;

import io.lmwarden.bench.report.StageResult;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class StageLatencyTest {

    @Test
    void theSessionsSlowestStepsShowATailThatTheStepsPercentilesAverageAway() {
        // 100 steps of 20 sessions: 99 steps take 1 s, one session's one step takes 60 s.
        Histogram steps = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < 99; i++) {
            steps.recordValue(1_000_000);
        }
        steps.recordValue(60_000_000);
        List<Long> worstPerSession = new java.util.ArrayList<>(java.util.Collections.nCopies(19, 1_000_000L));
        worstPerSession.add(60_000_000L);

        StageResult.Latency l = StageMeter.latency(steps, worstPerSession);

        assertThat(l.ttfbP95()).isCloseTo(1.0, within(0.01));
        assertThat(l.ttfbP99()).isCloseTo(1.0, within(0.01));
        assertThat(l.sessionWorstTtfbP95()).isCloseTo(1.0, within(0.01));
        assertThat(l.sessionWorstTtfbMax()).isCloseTo(60.0, within(0.1));
    }

    @Test
    void aStageWithoutStepsHasNoFigures() {
        StageResult.Latency l = StageMeter.latency(new Histogram(3_600_000_000L, 3), List.of());
        assertThat(l.ttfbP50()).isNaN();
        assertThat(l.sessionWorstTtfbMax()).isNaN();
    }
}
