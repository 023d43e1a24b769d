package io.lmwarden.bench.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * report.md's section with issue 23's goal: per stage, default against the best other policy, and the verdict. When the
 * run has the default behind several routers ({@code default*2}, {@code default*3}, or {@code --routers K}), each is a row
 * beside {@code default}, with issue 33's comparison against one router and its router spread.
 */
final class GoalTable {

    private GoalTable() {
    }

    static String render(List<StageResult> medians, boolean replay) {
        List<GoalVerdict.Cell> cells = GoalVerdict.of(medians);
        if (cells.isEmpty()) {
            return "";
        }
        boolean routers = cells.stream().anyMatch(c -> !c.variant().equals(io.lmwarden.bench.pool.VariantSpec.DEFAULT)
                || c.routers().routers() > 1);
        StringBuilder md = new StringBuilder("\n## Goal: default against the best other policy\n\n");
        md.append(String.format(Locale.ROOT, "default ≥ the best other − %.0f %% on output tokens/min and sessions/h, ≤ the best other"
                + " + %.0f %% on TTFB p50 and on the Little's-law session time, and no rejected step of a session in progress (medians;"
                + " rejections are totals over repeats; the ceiling is the bound, not an other). Cells read best (policy) → default"
                + " (difference).%n", GoalVerdict.THROUGHPUT_TOLERANCE * 100, GoalVerdict.LATENCY_TOLERANCE * 100));
        if (routers) {
            md.append(String.format(Locale.ROOT, "%nSeveral routers: each variant of the default is judged the same way, and one behind"
                    + " several clustered routers also against default on one router: ≥ its − %.0f %% on output tokens/min and"
                    + " sessions/h, prefix hits ≥ its − %.0f points (cells read one router → this variant). *Steps per router*,"
                    + " *on 2+ replicas*, *unannounced moves* and *refused connections* are the variant's router spread (totals over"
                    + " repeats; see \"Routers and splits\").%n", GoalVerdict.THROUGHPUT_TOLERANCE * 100,
                    GoalVerdict.HITS_TOLERANCE_POINTS));
        }
        md.append('\n');
        List<String> criteriaHeader = cells.stream().filter(c -> !c.criteria().isEmpty()).findFirst()
                .map(c -> c.criteria().stream().map(GoalVerdict.Criterion::figure).toList()).orElse(List.of());
        List<String> header = new ArrayList<>(List.of(replay ? "Window" : "Sessions"));
        if (routers) {
            header.add("Variant");
        }
        header.addAll(criteriaHeader);
        if (routers) {
            header.addAll(List.of("against one router: output tok/min", "sessions/h", "prefix hits %"));
        }
        header.addAll(List.of("default: rejected in progress / first steps", "default ÷ ceiling (tok/min)"));
        if (routers) {
            header.addAll(List.of("steps per router", "on 2+ replicas", "unannounced moves", "refused connections"));
        }
        header.add("verdict");
        md.append(row(header)).append(row(Collections.nCopies(header.size(), "---")));
        for (GoalVerdict.Cell cell : cells) {
            List<String> out = new ArrayList<>(List.of(String.valueOf(cell.sessions())));
            if (routers) {
                out.add(cell.variant());
            }
            if (cell.criteria().isEmpty()) {
                out.addAll(Collections.nCopies(criteriaHeader.size(), "–"));
            } else {
                cell.criteria().forEach(c -> out.add(describe(c)));
            }
            if (routers) {
                if (cell.againstOneRouter().isEmpty()) {
                    out.addAll(Collections.nCopies(3, "–"));
                } else {
                    cell.againstOneRouter().forEach(c -> out.add(describe(c)));
                }
            }
            out.add(cell.rejectedInProgress() + " / " + cell.rejectedFirstSteps());
            out.add(Double.isNaN(cell.ceilingRatio()) ? "–" : String.format(Locale.ROOT, "%.2f", cell.ceilingRatio()));
            if (routers) {
                RouterSpread s = cell.routers();
                out.add(s.describeSteps());
                out.add(s.onSeveralReplicas() + " of " + s.sessions());
                out.add(String.valueOf(s.unannouncedMoves()));
                out.add(String.valueOf(s.refusedConnections()));
            }
            out.add(cell.met() ? "meets" : "misses: " + String.join("; ", cell.misses()));
            md.append(row(out));
        }
        return md.toString();
    }

    /** "12,000 (affinity) → 11,000 (-8 %) ✗" */
    private static String describe(GoalVerdict.Criterion c) {
        int decimals = c.points() ? 1 : c.figure().startsWith("TTFB") ? 2 : 0;
        return MarkdownReport.fmt(c.best(), decimals) + " (" + c.bestPolicy() + ") → " + (c.censored() ? "≥ " : "")
                + MarkdownReport.fmt(c.value(), decimals) + c.describeDelta() + (c.met() ? "" : " ✗");
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }
}
