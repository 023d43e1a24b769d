package io.lmwarden.bench.report;

import io.lmwarden.bench.settings.BenchSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * report.md: the table in the published form ("least-loaded → affinity" in every cell), one more column
 * group per extra policy, then the command, settings and per-repeat figures.
 */
public final class MarkdownReport {

    /** One column: a figure, its decimals, and when it is a lower bound (written "≥"). */
    private record Column(String title, ToDoubleFunction<StageResult> figure, int decimals, Predicate<StageResult> atLeast) {
        Column(String title, ToDoubleFunction<StageResult> figure, int decimals) {
            this(title, figure, decimals, r -> false);
        }
    }

    private static final List<Column> COLUMNS = List.of(
            new Column("Sessions/h", r -> r.throughput().sessionsPerHour(), 0),
            new Column("Output tok/min", r -> r.throughput().outputTokensPerMin(), 0),
            new Column("TTFB p50 (s)", r -> r.latency().ttfbP50(), 2),
            new Column("TTFB p95 (s)", r -> r.latency().ttfbP95(), 2),
            new Column("TTFB p99 (s)", r -> r.latency().ttfbP99(), 2),
            new Column("worst session TTFB max (s)", r -> r.latency().sessionWorstTtfbMax(), 2),
            new Column("Replicas busy", StageResult::replicasBusy, 2),
            new Column("Prefix hits %", r -> r.cache().prefixHitPct(), 1),
            new Column("Stayed %", r -> r.cache().stayedPct(), 1),
            new Column("Oracle hits %", r -> r.cache().oracleHitPct(), 1),
            new Column("Errors", r -> r.errors().count(), 0),
            new Column("Session time p50 (s)", r -> r.sessionTimes().p50(), 0, r -> r.sessionTimes().p50AtLeast()),
            new Column("Session time p95 (s)", r -> r.sessionTimes().p95(), 0, r -> r.sessionTimes().p95AtLeast()),
            new Column("Queue wait p50 (s)", r -> r.queue().waitP50(), 1),
            new Column("Queue wait p95 (s)", r -> r.queue().waitP95(), 1),
            new Column("Queue wait max (s)", r -> r.queue().waitMax(), 1),
            new Column("Admitted", r -> r.queue().admitted(), 0),
            new Column("Queued", r -> r.queue().queued(), 0),
            new Column("Rejected", r -> r.queue().rejected(), 0),
            new Column("Rejected in progress", r -> r.queue().rejectedInProgress(), 0),
            new Column("Session time, Little's law (s)", r -> r.sessionTimes().littlesLaw(), 0, r -> r.sessionTimes().littlesLawAtLeast()),
            new Column("Unfinished sessions", r -> r.sessionTimes().unfinished(), 0),
            new Column("Oldest unfinished (s)", r -> r.sessionTimes().unfinishedAgeMax(), 0));

    /** The columns, and each policy's output tokens/min as a share of the ceiling's when the run has one. */
    private static List<Column> columns(List<StageResult> rows) {
        if (!CeilingRatio.present(rows)) {
            return COLUMNS;
        }
        List<Column> all = new ArrayList<>(COLUMNS);
        all.add(2, new Column("Tok/min ÷ ceiling", r -> CeilingRatio.outputTokens(r, rows), 2));
        return all;
    }

    private MarkdownReport() {
    }

    public static String render(BenchResults results) {
        BenchSettings s = results.settings();
        List<StageResult> rows = results.medians();
        List<String> policies = Medians.policies(rows);
        List<String> paired = policies.subList(0, Math.min(2, policies.size()));
        List<String> extra = policies.size() > 2 ? policies.subList(2, policies.size()) : List.of();
        StringBuilder md = new StringBuilder();
        md.append("# LM Warden bench report\n\n");
        md.append("Cells read `").append(String.join(" → ", paired)).append("`");
        if (!extra.isEmpty()) {
            md.append("; extra column groups for ").append(String.join(", ", extra));
        }
        md.append(s.run().repeat() > 1 ? "; medians of " + s.run().repeat() + " repeats (errors: total over repeats)" : "");
        md.append(". Times are workload time (wall time × ").append(fmt(s.run().timeScale(), 0)).append(").\n\n");

        List<Column> columns = columns(rows);
        String stageTitle = s.trace() != null ? "Window" : "Sessions";
        List<String> header = new ArrayList<>(List.of(stageTitle));
        columns.forEach(c -> header.add(c.title()));
        for (String p : extra) {
            columns.forEach(c -> header.add(p + ": " + c.title()));
        }
        md.append(row(header)).append(row(header.stream().map(h -> "---").toList()));
        for (int sessions : Medians.stages(rows)) {
            List<String> cells = new ArrayList<>(List.of(String.valueOf(sessions)));
            for (Column c : columns) {
                List<String> values = new ArrayList<>();
                for (String p : paired) {
                    values.add(value(Medians.find(rows, p, sessions), c));
                }
                cells.add(String.join(" → ", values));
            }
            for (String p : extra) {
                for (Column c : columns) {
                    cells.add(value(Medians.find(rows, p, sessions), c));
                }
            }
            md.append(row(cells));
        }
        md.append(GoalTable.render(rows, s.trace() != null));

        if (!s.plan().faults().isEmpty() || rows.stream().anyMatch(r -> r.routerSpread().routers() > 1
                || r.routerSpread().movesByDecision().containsKey("DRAIN") || r.routerSpread().refusedConnections() > 0)) {
            md.append(RouterSpreadTable.render(rows, s.pool().stepsPerRouter()));
        }
        appendClassTable(md, rows, policies);
        md.append(AdapterTable.render(rows));
        md.append(TimelineTable.render(results.perRepeat()));

        md.append("\n## Command and settings\n\n```\n").append(s.commandLine()).append("\n```\n\n");
        md.append("- Target: ").append(results.target()).append('\n');
        md.append("- Engine counters: ").append(results.counterSource()).append('\n');
        md.append("- Model: ").append(results.model()).append("; API: ").append(s.api().shortName())
                .append(" (").append(s.api().path()).append(sessionKeying(s))
                .append(")\n");
        if (s.trace() != null) {
            md.append("- Trace replay: `").append(s.trace().file()).append("`, ").append(s.trace().blockSize())
                    .append(" tokens per hash id, speed ").append(fmt(s.trace().speed(), 2))
                    .append(s.trace().duration() == null ? ", the whole trace" : ", sessions that begin within "
                            + seconds(s.trace().duration().toMillis())).append("; the rows are windows of the replay\n");
        }
        md.append("- Stages: ").append(s.trace() != null ? "windows of the replay" : s.run().sessions() + " concurrent sessions")
                .append(", ").append(seconds(s.run().stage().toMillis()))
                .append(" each (workload time)")
                .append(s.run().settle().isZero() ? "" : s.trace() != null ? ", the first after " + seconds(s.run().settle().toMillis())
                        + " unmeasured" : ", each measured after " + seconds(s.run().settle().toMillis()) + " unmeasured at its concurrency")
                .append("; time scale ").append(fmt(s.run().timeScale(), 1)).append('\n');
        if (!s.pool().routerSettings().isEmpty()) {
            md.append("- Router settings (--router-set): ").append(new java.util.TreeMap<>(s.pool().routerSettings())).append('\n');
        }
        if (s.workloadFile() != null) {
            md.append("- Workload file: `").append(s.workloadFile()).append("`, seed ").append(s.workload().seed()).append('\n');
            s.plan().classes().forEach(c -> md.append("  - ").append(c.describe()).append('\n'));
            s.plan().replicaOverrides().forEach((i, o) -> md.append("  - replica ").append(i).append(": ").append(o).append('\n'));
            if (s.plan().adapters().present()) {
                md.append("  - ").append(s.plan().adapters().describe()).append("; max_loras ").append(s.pool().maxLoras())
                        .append(", max_cpu_loras ").append(s.pool().maxCpuLoras()).append('\n');
            }
        } else {
            md.append("- Workload: system prompt ").append(s.workload().systemTokens()).append(" tokens (shared), first message ")
                    .append(s.workload().firstTokens()).append(s.plan().classes().get(0).sharedFirstMessage() ? " tokens (the same for every session), " : " tokens (unique), ").append(s.workload().followUpSteps())
                    .append(" follow-up steps of ").append(s.workload().stepTokens()).append(" new tokens plus the previous reply, max ")
                    .append(s.workload().maxOutputTokens()).append(" output tokens, think time ")
                    .append(seconds(s.workload().thinkTime().toMillis())).append(" mean (±")
                    .append(fmt(s.workload().thinkJitter() * 100, 0)).append("%), seed ").append(s.workload().seed()).append('\n');
        }
        md.append("- Policies: ").append(s.run().policies()).append(", repeats ").append(s.run().repeat())
                .append(s.run().repeat() > 1 ? " (order alternated)" : "")
                .append(s.pool().spillThreshold() != null ? ", spill threshold " + s.pool().spillThreshold() : "").append('\n');
        if (s.pool().stepsPerRouter() > 1) {
            md.append("- Steps per router: a session sends ").append(s.pool().stepsPerRouter())
                    .append(" consecutive steps to one router, then moves to the next (--steps-per-router)\n");
        }
        md.append("- JVM warm-up before measuring: ").append(seconds(s.run().warmUp().toMillis())).append(" wall on a throwaway pool\n");
        java.util.DoubleSummaryStatistics cpu = results.perRepeat().stream().mapToDouble(StageResult::benchCpuCores)
                .filter(v -> !Double.isNaN(v)).summaryStatistics();
        if (cpu.getCount() > 0) {
            md.append("- Bench process CPU (load generator, router and simulator together): ").append(fmt(cpu.getMin(), 2))
                    .append("–").append(fmt(cpu.getMax(), 2)).append(" cores per stage, of ")
                    .append(Runtime.getRuntime().availableProcessors()).append('\n');
        }
        md.append("- Run: ").append(results.started()).append(" → ").append(results.finished()).append("; machine: ")
                .append(results.machine()).append('\n');

        md.append("\n## Definitions\n\n");
        md.append("- A step belongs to the stage in which it ended; sessions carry over from one stage to the next.\n");
        md.append("- TTFB: client-side, from sending the request to the first streamed text (HdrHistogram), × time scale.\n");
        md.append("- Replicas busy: replicas with at least one running request, sampled every ")
                .append(seconds(s.run().sampleInterval().toMillis())).append(" and averaged.\n");
        md.append("- Prefix hits: Σ Δ prefix_cache_hits_total / Σ Δ prefix_cache_queries_total over all replicas in the stage.\n");
        md.append("- Stayed: follow-up steps served by the replica that served the session's previous step (from X-LMW-Replica).\n");
        md.append("- Oracle hits: the hit rate perfect placement without eviction would reach on this workload (previous prompt and ")
                .append("reply for follow-ups, the shared system prompt for first steps, whole 16-token blocks).\n");
        if (CeilingRatio.present(rows)) {
            md.append("- Ceiling: the same workload on affinity (admission off) with every replica's KV cache large enough that ")
                    .append("nothing is evicted (see Target for its size): the upper bound of what placement can reach on this ")
                    .append("compute. *Tok/min ÷ ceiling*: each variant's output tokens/min as a share of it, same stage and repeat.\n");
        }
        md.append("- Errors: failed steps (HTTP errors, stream errors, streams cut before their completion marker).\n");
        for (StageResult r : rows) {
            if (!r.errors().causes().isEmpty()) {
                md.append("  - ").append(r.policy()).append(", ").append(r.sessions()).append(" sessions: ");
                List<String> parts = new ArrayList<>();
                r.errors().causes().forEach((cause, n) -> parts.add(n + " × " + cause));
                md.append(String.join(", ", parts)).append('\n');
            }
        }
        if (!s.plan().faults().isEmpty()) {
            md.append("- Faults, each variant: ");
            md.append(String.join("; ", s.plan().faults().stream().map(io.lmwarden.bench.workload.ScheduledFault::describe).toList()))
                    .append(" (workload time from the variant's start).\n");
        }
        md.append("- Session time p50 / p95: first step sent → last step ended, router queue included, for sessions whose last step ")
                .append("ended in the stage (a session that began in an earlier stage counts where it ends; one that joined mid-life, ")
                .append("with a steady start, does not). **These are censored**: a session too slow to end inside the window is ")
                .append("missing from them, so at saturation they understate; a percentile is written \"≥\" when some session still ")
                .append("running at the window's end was already older than it. *Unfinished sessions* counts those (totals over ")
                .append("repeats) and *oldest unfinished* gives the oldest's age.\n");
        md.append("- Session time, Little's law: the mean time a session spends in the system, concurrency ÷ completion rate (")
                .append(s.trace() != null ? "the window's mean number of sessions in flight" : "the stage's sessions")
                .append(" ÷ sessions completed per second in the window). It counts every session, slow ones included, so it ")
                .append("is not censored; with no session completed in a window it is the lower bound concurrency × window, ")
                .append("written \"≥\".\n");
        md.append("- Rejected in progress: rejected steps of sessions the router already knew (not their first step in the run); ")
                .append("the other rejections are of newcomers.\n");
        md.append("- Queue wait: among the steps the router's admission queue held, how long (X-LMW-Queue-Wait-Ms, or the ")
                .append("`: lmw … queue-wait-ms=` comment of a kept-alive stream). Admitted / queued / rejected: steps let through, ")
                .append("steps that waited first, steps turned away as overloaded (429 / 529, also counted as errors).\n");

        if (s.run().repeat() > 1) {
            md.append("\n## Every repeat\n\n");
            List<Column> repeatColumns = columns(results.perRepeat());
            List<String> repeatHeader = new ArrayList<>(List.of("Policy", "Repeat", stageTitle));
            repeatColumns.forEach(c -> repeatHeader.add(c.title()));
            md.append(row(repeatHeader));
            md.append(row(java.util.Collections.nCopies(repeatHeader.size(), "---")));
            for (StageResult r : results.perRepeat()) {
                List<String> cells = new ArrayList<>(List.of(r.policy(), String.valueOf(r.repeat()), String.valueOf(r.sessions())));
                repeatColumns.forEach(c -> cells.add(value(r, c)));
                md.append(row(cells));
            }
        }
        md.append("\nCharts: `ttfb.png`, `prefix_hits.png`, `output_tokens.png`.\n");
        return md.toString();
    }

    /** One row per stage, policy and session class, when the workload has several classes. */
    private static void appendClassTable(StringBuilder md, List<StageResult> rows, List<String> policies) {
        if (rows.stream().allMatch(r -> r.classes().isEmpty())) {
            return;
        }
        md.append("\n## Per session class\n\n");
        md.append("Hits: the cached share of the class's prompt tokens by the engines' per-request usage (engine counters are ")
                .append("not per class). Steps: median over repeats; errors: total over repeats.\n\n");
        List<String> header = List.of("Sessions", "Policy", "Class", "Steps", "TTFB p50 (s)", "TTFB p95 (s)", "Hits %", "Stayed %", "Errors");
        md.append(row(header)).append(row(java.util.Collections.nCopies(header.size(), "---")));
        for (int sessions : Medians.stages(rows)) {
            for (String p : policies) {
                StageResult r = Medians.find(rows, p, sessions);
                if (r == null) {
                    continue;
                }
                for (ClassFigures c : r.classes()) {
                    md.append(row(List.of(String.valueOf(sessions), p, c.name(), String.valueOf(c.steps()), fmt(c.ttfbP50(), 2),
                            fmt(c.ttfbP95(), 2), fmt(c.cachedPct(), 1), fmt(c.stayedPct(), 1), String.valueOf(c.errors()))));
                }
            }
        }
    }

    private static String value(StageResult r, Column c) {
        if (r == null) {
            return "–";
        }
        String v = fmt(c.figure().applyAsDouble(r), c.decimals());
        return c.atLeast().test(r) && !v.equals("n/a") ? "≥ " + v : v;
    }

    static String fmt(double v, int decimals) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return decimals == 0 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** How the sessions were keyed: one class's header, or per class when a workload file mixes them. */
    private static String sessionKeying(io.lmwarden.bench.settings.BenchSettings s) {
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        s.plan().classes().forEach(c -> keys.add(c.keying() == io.lmwarden.bench.workload.SessionKeying.NONE ? "no session key"
                : c.keying().header() == null ? "metadata.user_id" : "session header " + c.keying().header()));
        return ", " + String.join(" / ", keys);
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : fmt(millis / 1000.0, 3) + " s";
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }
}
