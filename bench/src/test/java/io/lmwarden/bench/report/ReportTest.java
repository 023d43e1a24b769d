package io.lmwarden.bench.report;

import io.lmwarden.common.Durations;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportTest {

    private static StageResult row(String policy, int sessions, int repeat, double p50, int errors) {
        return row(policy, sessions, repeat, p50, errors, List.of());
    }

    static StageResult row(String policy, int sessions, int repeat, double p50, int errors, List<ClassFigures> classes) {
        return new StageResult(policy, sessions, repeat, 180, new StageResult.Throughput(200, 6000, 6000, 40, 9, 210),
                new StageResult.Latency(p50, p50 * 3), new StageResult.SessionTimes(60, 90, false, false, 48, false, 4, 30, 50, 46),
                new StageResult.CacheFigures(56, 100, 90, 55), new StageResult.QueueFigures(1.5, 4.0, 5.0, 40, 3, 0, 0),
                new StageResult.ErrorFigures(errors, errors == 0 ? java.util.Map.of() : java.util.Map.of("HTTP 503", errors)),
                2.7, 0.8, List.of(), classes, RouterSpread.NONE);
    }

    /** A simulated run's settings for report rendering: --simulate 4, the reference workload. */
    static io.lmwarden.bench.settings.BenchSettings settings(List<String> policies, int repeat, List<Integer> sessions) {
        return new io.lmwarden.bench.settings.BenchSettings(
                new io.lmwarden.bench.settings.PoolSettings(4, null, "a4000-qwen3-4b", null, 1, "current", 1, 1, false, List.of(), java.util.Map.of(),
                        Duration.ofMillis(100), null, null, null, 0, false, 4, 4),
                new io.lmwarden.bench.settings.RunPlan(policies, repeat, sessions, Duration.ofMinutes(3), Duration.ZERO, 10, Duration.ofSeconds(1),
                        Duration.ofSeconds(5), false),
                io.lmwarden.bench.workload.Workload.single(io.lmwarden.bench.workload.WorkloadSpec.reference(),
                        io.lmwarden.common.api.ApiDialect.ANTHROPIC_MESSAGES), null, null, null, "java -jar lmw-bench.jar --simulate 4");
    }

    @Test
    void mediansPerPolicyAndStageAndErrorsAreSummed() {
        List<StageResult> m = Medians.of(List.of(row("a", 4, 1, 1.0, 0), row("a", 4, 2, 3.0, 2), row("a", 4, 3, 2.0, 1),
                row("b", 4, 1, 0.5, 0), row("b", 4, 2, 0.7, 0)));
        assertThat(m).hasSize(2);
        assertThat(m.get(0).latency().ttfbP50()).isEqualTo(2.0);
        assertThat(m.get(0).errors().count()).isEqualTo(3);
        assertThat(m.get(0).errors().causes()).containsExactly(java.util.Map.entry("HTTP 503", 3));
        assertThat(m.get(1).latency().ttfbP50()).isEqualTo(0.6);
    }

    @Test
    void csvHasExactlyThePublishedColumns() {
        String csv = CsvReport.render(List.of(row("least-loaded", 4, 0, 2.05, 0)));
        String[] lines = csv.split("\n");
        assertThat(lines[0]).isEqualTo("policy,sessions,sessions_per_hour,output_tokens_per_min,ttfb_p50_s,ttfb_p95_s,"
                + "replicas_busy,prefix_hit_pct,stayed_pct,oracle_hit_pct,errors,session_time_p50_s,session_time_p95_s,"
                + "queue_wait_p50_s,queue_wait_p95_s,queue_wait_max_s,admitted,queued,rejected");
        assertThat(lines[1]).isEqualTo("least-loaded,4,200.0,6000.0,2.050,6.150,2.70,56.0,100.0,90.0,0,60.0,90.0,1.50,4.00,5.00,40,3,0");
    }

    @Test
    void markdownPairsTheFirstTwoPoliciesAndAddsAColumnGroupPerExtraPolicy() {
        io.lmwarden.bench.settings.BenchSettings settings = settings(List.of("least-loaded", "affinity", "round-robin"), 1, List.of(4));
        List<StageResult> rows = List.of(row("least-loaded", 4, 1, 2.05, 0), row("affinity", 4, 1, 0.38, 0),
                row("round-robin", 4, 1, 1.5, 1));
        String md = MarkdownReport.render(new BenchResults(settings, "sim", "in-process", "m", java.time.Instant.EPOCH,
                java.time.Instant.EPOCH, "2 cores", rows, Medians.of(rows)));
        assertThat(md).contains("`least-loaded → affinity`").contains("round-robin: TTFB p50 (s)")
                .contains("| 4 | 200 → 200 | 6,000 → 6,000 | 2.05 → 0.38 |").contains("--simulate 4")
                .contains("round-robin, 4 sessions: 1 × HTTP 503");
    }

    @Test
    void durationsParseAsPeopleTypeThem() {
        assertThat(Durations.parse("60s")).isEqualTo(Duration.ofSeconds(60));
        assertThat(Durations.parse("3m")).isEqualTo(Duration.ofMinutes(3));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("2")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("0")).isZero();
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageContaining("not a duration");
    }

    @Test
    void classFiguresAreMedianedOverRepeatsAndGetTheirOwnTableAndJson() {
        java.util.function.BiFunction<Integer, Double, StageResult> withClasses = (repeat, p50) -> row("affinity", 8, repeat, 1, 0,
                List.of(new ClassFigures("short", 10, 1, p50, p50 * 2, 40.0, 50.0), new ClassFigures("long", 30, 0, 0.2, 0.4, 90.0, 100.0)));
        List<StageResult> perRepeat = List.of(withClasses.apply(1, 1.0), withClasses.apply(2, 3.0), withClasses.apply(3, 2.0));
        StageResult median = Medians.of(perRepeat).get(0);
        assertThat(median.classes()).extracting(ClassFigures::name).containsExactly("short", "long");
        assertThat(median.classes().get(0).ttfbP50()).isEqualTo(2.0);
        assertThat(median.classes().get(0).errors()).isEqualTo(3);
        assertThat(median.classes().get(0).steps()).isEqualTo(10);

        io.lmwarden.bench.settings.BenchSettings settings = settings(List.of("affinity"), 3, List.of(8));
        BenchResults results = new BenchResults(settings, "sim", "in-process", "m", java.time.Instant.EPOCH,
                java.time.Instant.EPOCH, "2 cores", perRepeat, Medians.of(perRepeat));
        assertThat(MarkdownReport.render(results)).contains("## Per session class")
                .contains("| 8 | affinity | short | 10 | 2.00 | 4.00 | 40.0 | 50.0 | 3 |")
                .contains("| 8 | affinity | long | 30 | 0.20 | 0.40 | 90.0 | 100.0 | 0 |");
        assertThat(JsonReport.render(results)).contains("\"class\" : \"short\"").contains("\"ttfb_p50_s\" : 2.0");
    }
}
