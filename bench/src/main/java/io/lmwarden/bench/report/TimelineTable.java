package io.lmwarden.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * report.md's "Pool operations" section: for every stage with a timeline (runs with scheduled faults), issue 26's goal
 * figures, the operations' phases and the stage window by window.
 */
final class TimelineTable {

    private TimelineTable() {
    }

    static String render(List<StageResult> perRepeat) {
        List<StageResult> rows = perRepeat.stream().filter(r -> r.timeline().present()).toList();
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("\n## Pool operations over time\n\n");
        md.append("Times are workload seconds from the variant's start (the clock `--fault` times use). *Lost*: failed steps ")
                .append("that never got a first token (refused, HTTP error, rejected); *cut*: failed steps whose stream had ")
                .append("started. *Hits %*: cached share of the prompt tokens of the steps that ended in the window (the ")
                .append("engines' per-request usage). *Queue p95*: over every step of the window, 0 for a step the router's queue ")
                .append("did not hold. *Moves*: follow-ups that ran on another replica than the step before. *Before*: the ")
                .append("measurement window's start to the first operation's start; *during*: to the last Ready (for a ")
                .append("scale-down: to its end).\n");
        for (StageResult r : rows) {
            Timeline t = r.timeline();
            Timeline.Figures f = t.figures();
            md.append("\n### ").append(r.policy()).append(", ").append(r.sessions()).append(" sessions, repeat ").append(r.repeat())
                    .append("\n\n");
            md.append("| figure | value |\n| --- | --- |\n");
            md.append("| steps lost before their first byte / streams cut (whole stage) | ").append(f.lostBeforeFirstByte())
                    .append(" / ").append(f.cutStreams()).append(" |\n");
            if (t.overrun().happened()) {
                md.append("| stage ran past its nominal end while scheduled faults finished (s) | ").append(fmt(t.overrun().seconds(), 1))
                        .append(t.overrun().stillRunning().isEmpty() ? "" : "; the hang guard ended it with still running: "
                                + String.join(", ", t.overrun().stillRunning())).append(" |\n");
            }
            md.append("| moves by decision | ").append(r.routerSpread().describeMoves()).append(" |\n");
            if (r.routerSpread().routers() > 1) {
                md.append("| sessions split (unannounced moves) | ").append(r.routerSpread().unannouncedMoves()).append(" |\n");
            }
            md.append("| operations: first start / last end / last Ready (s) | ").append(fmt(f.operationStart(), 1)).append(" / ")
                    .append(fmt(f.operationEnd(), 1)).append(" / ").append(fmt(f.lastReady(), 1)).append(" |\n");
            md.append("| output tok/min before → during (ratio) | ").append(fmt(f.tokensPerMinBefore(), 0)).append(" → ")
                    .append(fmt(f.tokensPerMinDuring(), 0)).append(" (").append(fmt(f.tokensRatio(), 2)).append(") |\n");
            md.append("| hits % before → in the ").append(fmt(f.afterSeconds(), 0)).append(" s after the last Ready (points) | ")
                    .append(fmt(f.hitPctBefore(), 1)).append(" → ").append(fmt(f.hitPctAfter(), 1)).append(" (")
                    .append(signed(f.hitPctChange())).append(") |\n");
            md.append("| queue wait p95 (s) before → the 180 s after the last Ready → later | ").append(fmt(f.queueWaitP95Before(), 1))
                    .append(" → ").append(fmt(f.queueWaitP95NextStage(), 1)).append(" → ").append(fmt(f.queueWaitP95Later(), 1))
                    .append(" |\n");
            md.append("\n| t (s) | subject | phase | detail |\n| --- | --- | --- | --- |\n");
            for (Timeline.Phase p : t.phases()) {
                md.append("| ").append(fmt(p.atSeconds(), 1)).append(" | ").append(p.subject()).append(" | ").append(p.phase())
                        .append(" | ").append(p.detail() == null ? "" : p.detail().replace("|", "\\|").replace("\n", " ")).append(" |\n");
            }
            md.append("\n| window (s) | steps | output tok/min | hits % | lost | cut | queued | queue p95 (s) | moves | steps by replica |\n")
                    .append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
            for (Timeline.Window w : t.windows()) {
                md.append("| ").append(fmt(w.fromSeconds(), 0)).append("–").append(fmt(w.toSeconds(), 0)).append(" | ").append(w.steps())
                        .append(" | ").append(fmt(w.outputTokensPerMin(), 0)).append(" | ").append(fmt(w.cachedPct(), 1))
                        .append(" | ").append(w.lostBeforeFirstByte()).append(" | ").append(w.cutStreams()).append(" | ")
                        .append(w.queued()).append(" | ").append(fmt(w.queueWaitP95(), 1)).append(" | ").append(w.moves())
                        .append(" | ").append(w.describeReplicas()).append(" |\n");
            }
        }
        return md.toString();
    }

    private static String fmt(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "–" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static String signed(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%+.1f", v);
    }
}
