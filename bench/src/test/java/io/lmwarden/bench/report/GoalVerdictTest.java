package io.lmwarden.bench.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GoalVerdictTest {

    private static StageResult row(String policy, double tokens, double sessionsPerHour, double ttfb, double littlesLaw,
                                   boolean littlesLawAtLeast, int rejected, int rejectedInProgress) {
        return row(policy, tokens, sessionsPerHour, ttfb, littlesLaw, littlesLawAtLeast, rejected, rejectedInProgress, 30, Double.NaN);
    }

    /** @param fromCalls sessions/h from the calls (Little's law from calls: 32 sessions ÷ it) */
    private static StageResult row(String policy, double tokens, double sessionsPerHour, double ttfb, double littlesLaw,
                                   boolean littlesLawAtLeast, int rejected, int rejectedInProgress, int completed, double fromCalls) {
        return new StageResult(policy, 32, 0, 180, new StageResult.Throughput(sessionsPerHour, tokens, tokens, 100, completed, fromCalls),
                new StageResult.Latency(ttfb, ttfb * 4), new StageResult.SessionTimes(100, 200, false, false, littlesLaw,
                littlesLawAtLeast, 3, 50, 90, 32 * 3600 / fromCalls), new StageResult.CacheFigures(50, 90, 80, 50),
                new StageResult.QueueFigures(1, 2, 3, 100, 10, rejected, rejectedInProgress),
                new StageResult.ErrorFigures(rejected, java.util.Map.of()), 3.5, 1, List.of(), List.of(), RouterSpread.NONE);
    }

    /** A row of {@code policy} through {@code routers} routers with {@code hits} % prefix hits. */
    private static StageResult routed(String policy, int routers, double tokens, double sessionsPerHour, double hits, int unannounced) {
        StageResult r = row(policy, tokens, sessionsPerHour, 1.0, 380, false, 0, 0);
        java.util.List<Integer> steps = java.util.Collections.nCopies(routers, 100);
        return new StageResult(r.policy(), r.sessions(), 0, r.stageSeconds(), r.throughput(), r.latency(), r.sessionTimes(),
                new StageResult.CacheFigures(hits, 90, 80, hits), r.queue(), r.errors(), r.replicasBusy(), r.benchCpuCores(), List.of(),
                List.of(), new RouterSpread(steps, 30, unannounced, unannounced, java.util.Map.of(), 0));
    }

    @Test
    void severalRoutersAreCellsBesideDefaultJudgedAlsoAgainstOneRouter() {
        List<StageResult> rows = List.of(
                routed("affinity", 1, 10_000, 300, 40, 0),
                routed("default", 1, 12_000, 320, 76, 0),
                routed("default*2", 2, 11_700, 311, 74.5, 0),
                routed("default*3", 3, 11_500, 320, 73, 4));
        List<GoalVerdict.Cell> cells = GoalVerdict.of(rows);
        assertThat(cells).extracting(GoalVerdict.Cell::variant).containsExactly("default", "default*2", "default*3");
        // the other routers' variants are no competitors of default: its best other is affinity
        assertThat(cells.get(0).criteria()).extracting(GoalVerdict.Criterion::bestPolicy).containsOnly("affinity");
        assertThat(cells.get(0).againstOneRouter()).isEmpty();
        GoalVerdict.Cell two = cells.get(1);
        assertThat(two.againstOneRouter()).extracting(GoalVerdict.Criterion::figure)
                .containsExactly("output tok/min", "sessions/h", "prefix hits %");
        assertThat(two.againstOneRouter()).allMatch(GoalVerdict.Criterion::met);
        assertThat(two.met()).isTrue();
        assertThat(two.routers().stepsPerRouter()).containsExactly(100, 100);
        GoalVerdict.Cell three = cells.get(2);
        assertThat(three.met()).isFalse();
        assertThat(three.misses()).containsExactly("against one router: output tok/min by 1.2 % past its limit",
                "against one router: prefix hits % by 1.0 points past its limit");

        String md = GoalTable.render(rows, false);
        assertThat(md).contains("| Sessions | Variant |", "| 32 | default*3 |", "76.0 (default) → 73.0 (-3.0 points) ✗",
                "| 100 / 100 / 100 | 4 of 30 | 4 | 0 |");
        String json = JsonReport.render(new BenchResults(ReportTest.settings(List.of("affinity", "default", "default*2", "default*3"), 1,
                List.of(32)), "sim", "in-process", "m", java.time.Instant.EPOCH, java.time.Instant.EPOCH, "2 cores", rows, rows));
        assertThat(json).contains("\"variant\" : \"default*3\"", "\"against_one_router\"", "\"delta_points\" : -3.0",
                "\"refused_connections\" : 0");
    }

    @Test
    void defaultOnOneRouterAndOnSeveralMakeAVerdictWithoutAnyOtherPolicy() {
        List<GoalVerdict.Cell> cells = GoalVerdict.of(List.of(routed("default", 1, 12_000, 320, 76, 0),
                routed("default*3", 3, 12_100, 321, 75, 0)));
        assertThat(cells).singleElement().satisfies(c -> {
            assertThat(c.variant()).isEqualTo("default*3");
            assertThat(c.criteria()).isEmpty();
            assertThat(c.met()).isTrue();
        });
        // default on two routers (--routers 2) and no other policy: nothing to compare with
        assertThat(GoalVerdict.of(List.of(routed("default", 2, 12_000, 320, 76, 0)))).isEmpty();
    }

    @Test
    void defaultMeetsWithinTheBandsAgainstTheBestOtherOfEachFigure() {
        List<StageResult> rows = List.of(
                row("least-loaded", 10_000, 300, 2.0, 400, false, 0, 0),
                row("affinity", 12_000, 320, 1.0, 380, false, 0, 0),
                row("default", 11_700, 311, 1.04, 398, false, 5, 0),
                row("ceiling", 20_000, 500, 0.2, 200, false, 0, 0));
        GoalVerdict.Cell cell = GoalVerdict.of(rows).get(0);
        assertThat(cell.met()).isTrue();
        assertThat(cell.rejectedFirstSteps()).isEqualTo(5);
        assertThat(cell.criteria()).extracting(GoalVerdict.Criterion::bestPolicy)
                .containsExactly("affinity", "affinity", "affinity", "affinity"); // the ceiling is not an other
        assertThat(cell.ceilingRatio()).isEqualTo(11_700 / 20_000.0);
    }

    @Test
    void eachRuleMissesOnItsOwn() {
        List<StageResult> others = List.of(row("least-loaded", 10_000, 300, 2.0, 400, false, 0, 0), row("affinity", 12_000, 320, 1.0, 380,
                false, 0, 0));
        assertThat(misses(others, row("default", 11_500, 320, 1.0, 380, false, 0, 0))).containsExactly("output tok/min");
        assertThat(misses(others, row("default", 12_000, 300, 1.0, 380, false, 0, 0))).containsExactly("sessions/h");
        assertThat(misses(others, row("default", 12_000, 320, 1.06, 380, false, 0, 0))).containsExactly("TTFB p50");
        assertThat(misses(others, row("default", 12_000, 320, 1.0, 400, false, 0, 0))).containsExactly("Little's-law session time");
        // no session completed while the others completed enough: Little's law gives a lower bound, which cannot show the goal met
        assertThat(misses(others, row("default", 12_000, 320, 1.0, 300, true, 0, 0, 20, 300)))
                .containsExactly("Little's-law session time");
        GoalVerdict.Cell rejecting = GoalVerdict.of(concat(others, row("default", 12_000, 320, 1.0, 380, false, 3, 1))).get(0);
        assertThat(rejecting.met()).isFalse();
        assertThat(rejecting.misses()).containsExactly("1 steps of sessions in progress rejected");
    }

    @Test
    void withFewCompletionsSessionFiguresComeFromTheCalls() {
        // 3 completions per window: sessions/h 60 vs 40 is noise; from the calls the rates are 100 and 99
        List<StageResult> rows = List.of(row("affinity", 12_000, 60, 1.0, 1920, false, 0, 0, 3, 100),
                row("default", 12_000, 40, 1.0, 2880, false, 0, 0, 2, 99));
        GoalVerdict.Cell cell = GoalVerdict.of(rows).get(0);
        assertThat(cell.criteria()).extracting(GoalVerdict.Criterion::figure).containsExactly("output tok/min",
                "sessions/h (from calls)", "TTFB p50", "Little's-law session time (from calls)");
        assertThat(cell.met()).isTrue();
        assertThat(cell.criteria().get(3).value()).isCloseTo(32 * 3600 / 99.0, org.assertj.core.api.Assertions.within(1e-9));
    }

    @Test
    void withoutDefaultOrWithoutAnOtherThereIsNoVerdict() {
        assertThat(GoalVerdict.of(List.of(row("affinity", 1, 1, 1, 1, false, 0, 0)))).isEmpty();
        assertThat(GoalVerdict.of(List.of(row("default", 1, 1, 1, 1, false, 0, 0), row("ceiling", 1, 1, 1, 1, false, 0, 0)))).isEmpty();
    }

    @Test
    void resultsJsonCarriesTheVerdictPerCell() {
        List<StageResult> rows = List.of(row("affinity", 12_000, 320, 1.0, 380, false, 0, 0), row("default", 11_000, 320, 1.0, 380,
                false, 0, 0));
        String json = JsonReport.render(new BenchResults(ReportTest.settings(List.of("affinity", "default"), 1, List.of(32)), "sim",
                "in-process", "m", java.time.Instant.EPOCH, java.time.Instant.EPOCH, "2 cores", rows, rows));
        assertThat(json).contains("\"goal\"").contains("\"met\" : false").contains("output tok/min by 5.5 % past its limit");
        String md = MarkdownReport.render(new BenchResults(ReportTest.settings(List.of("affinity", "default"), 1, List.of(32)), "sim",
                "in-process", "m", java.time.Instant.EPOCH, java.time.Instant.EPOCH, "2 cores", rows, rows));
        assertThat(md).contains("## Goal: default against the best other policy")
                .contains("| 32 | 12,000 (affinity) → 11,000 (-8 %) ✗ |");
    }

    private static List<String> misses(List<StageResult> others, StageResult mine) {
        GoalVerdict.Cell cell = GoalVerdict.of(concat(others, mine)).get(0);
        return cell.criteria().stream().filter(c -> !c.met()).map(GoalVerdict.Criterion::figure).toList();
    }

    private static List<StageResult> concat(List<StageResult> a, StageResult b) {
        List<StageResult> all = new java.util.ArrayList<>(a);
        all.add(b);
        return all;
    }
}
