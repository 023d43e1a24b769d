package io.lmwarden.bench.workload;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The built-in class against issue 23's table, through the bench's own conversation logic (WorkloadStats). */
class ClaudeCodeToolsTest {

    private static final SessionClass CLASS = WorkloadFile.read(Path.of("claude-code-tools")).classes().get(0);

    @Test
    void onA256kWindowItSendsWhatThePublishedTracesShow() {
        Workload w = WorkloadFile.read(Path.of("claude-code-tools"));
        assertThat(w.start()).isEqualTo(SessionStart.STEADY);
        WorkloadStats s = WorkloadStats.of(CLASS, 600, 262_144);
        // pauses, s: 4 / 10 / 162 / 449
        assertThat(WorkloadStats.quantile(s.pauseSeconds(), 0.10)).isCloseTo(4, within(0.4));
        assertThat(WorkloadStats.quantile(s.pauseSeconds(), 0.50)).isCloseTo(10, within(1.0));
        assertThat(WorkloadStats.quantile(s.pauseSeconds(), 0.90)).isCloseTo(162, within(20.0));
        // calls per session: 7 / 45 / 155
        assertThat(WorkloadStats.quantile(s.calls(), 0.50)).isCloseTo(45, within(6.0));
        assertThat(WorkloadStats.quantile(s.calls(), 0.90)).isCloseTo(155, within(25.0));
        // growth: 185 / 655 / 3,615; output: 105 / 216 / 898
        assertThat(WorkloadStats.quantile(s.growth(), 0.10)).isCloseTo(185, within(30.0));
        assertThat(WorkloadStats.quantile(s.growth(), 0.50)).isCloseTo(655, within(70.0));
        assertThat(WorkloadStats.quantile(s.growth(), 0.90)).isCloseTo(3615, within(400.0));
        assertThat(WorkloadStats.quantile(s.output(), 0.50)).isCloseTo(216, within(20.0));
        assertThat(WorkloadStats.quantile(s.output(), 0.90)).isCloseTo(898, within(100.0));
        // prompts: 42k / 104k; p90 and p95 (234k / 301k) lie at or past this window, where sessions compact
        assertThat(WorkloadStats.quantile(s.prompt(), 0.10)).isCloseTo(42_000, within(4_000.0));
        assertThat(WorkloadStats.quantile(s.prompt(), 0.50)).isCloseTo(104_000, within(10_000.0));
        assertThat(WorkloadStats.quantile(s.prompt(), 1.0)).isLessThanOrEqualTo(262_144);
    }

    @Test
    void onA32kWindowItCompactsOftenAndStaysInside() {
        WorkloadStats s = WorkloadStats.of(CLASS, 300, 32_768);
        assertThat(WorkloadStats.quantile(s.prompt(), 1.0)).isLessThanOrEqualTo(32_768);
        assertThat(WorkloadStats.quantile(s.compactionsPerSession(), 0.5)).isGreaterThanOrEqualTo(3);
        assertThat(s.resetShare()).isGreaterThan(0.05);
    }
}
