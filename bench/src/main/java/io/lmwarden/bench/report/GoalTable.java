package io.lmwarden.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** report.md's section with issue 23's goal: per stage, default against the best other policy, and the verdict. */
final class GoalTable {

    private GoalTable() {
    }

    static String render(List<StageResult> medians, boolean replay) {
        List<GoalVerdict.Cell> cells = GoalVerdict.of(medians);
        if (cells.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("\n## Goal: default against the best other policy\n\n");
        md.append(String.format(Locale.ROOT, "default ≥ the best other − %.0f %% on output tokens/min and sessions/h, ≤ the best other"
                + " + %.0f %% on TTFB p50 and on the Little's-law session time, and no rejected step of a session in progress (medians;"
                + " rejections are totals over repeats; the ceiling is the bound, not an other). Cells read best (policy) → default"
                + " (difference).%n%n", GoalVerdict.THROUGHPUT_TOLERANCE * 100, GoalVerdict.LATENCY_TOLERANCE * 100));
        List<String> header = new ArrayList<>(List.of(replay ? "Window" : "Sessions"));
        cells.get(0).criteria().forEach(c -> header.add(c.figure()));
        header.addAll(List.of("default: rejected in progress / first steps", "default ÷ ceiling (tok/min)", "verdict"));
        md.append(row(header)).append(row(java.util.Collections.nCopies(header.size(), "---")));
        for (GoalVerdict.Cell cell : cells) {
            List<String> out = new ArrayList<>(List.of(String.valueOf(cell.sessions())));
            for (GoalVerdict.Criterion c : cell.criteria()) {
                int decimals = c.figure().startsWith("TTFB") ? 2 : 0;
                out.add(MarkdownReport.fmt(c.best(), decimals) + " (" + c.bestPolicy() + ") → " + (c.censored() ? "≥ " : "")
                        + MarkdownReport.fmt(c.value(), decimals)
                        + (Double.isNaN(c.deltaPct()) ? "" : String.format(Locale.ROOT, " (%+.0f %%)", c.deltaPct())) + (c.met() ? "" : " ✗"));
            }
            out.add(cell.rejectedInProgress() + " / " + cell.rejectedFirstSteps());
            out.add(Double.isNaN(cell.ceilingRatio()) ? "–" : String.format(Locale.ROOT, "%.2f", cell.ceilingRatio()));
            out.add(cell.met() ? "meets" : "misses: " + String.join("; ", cell.misses()));
            md.append(row(out));
        }
        return md.toString();
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }
}
