package io.lmwarden.bench.report;

import java.util.List;
import java.util.Locale;

/** report.md's section on LoRA adapters: slot waits, adapter loads and hits of adapter against base-model sessions. */
final class AdapterTable {

    private AdapterTable() {
    }

    /** Empty when no stage had sessions on an adapter. */
    static String render(List<StageResult> medians) {
        if (medians.stream().noneMatch(r -> r.adapters().present())) {
            return "";
        }
        StringBuilder md = new StringBuilder("\n## LoRA adapters\n\n");
        md.append("*Slot waits*: requests that waited at least one engine step because their adapter had no slot in the batch ")
                .append("(max_loras), Δ of the engines' counter over the window, as a share of all the stage's steps and of the ")
                .append("adapter sessions' steps. *Disk loads*: adapters loaded from disk (not in CPU memory) before a step. ")
                .append("*Hits*: the cached share of prompt tokens by the engines' per-request usage, of adapter and of base-model ")
                .append("sessions (gap: adapter − base, points); *oracle*: what perfect placement without eviction could serve. ")
                .append("Slot waits and loads are read from simulated engines in-process only (vLLM's metrics have neither).\n\n");
        md.append("| Sessions | Policy | Steps | Adapter steps | Slot waits | % of steps | % of adapter steps | Disk loads"
                + " | Hits adapter % | Hits base % | Gap (points) | Oracle adapter % | Oracle base % |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (StageResult r : medians) {
            AdapterFigures a = r.adapters();
            if (!a.present()) {
                continue;
            }
            md.append(String.format(Locale.ROOT, "| %d | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", r.sessions(),
                    r.policy(), a.steps(), a.adapterSteps(), MarkdownReport.fmt(a.slotWaits(), 0), MarkdownReport.fmt(a.slotWaitPct(), 2),
                    MarkdownReport.fmt(a.slotWaitPctOfAdapterSteps(), 2), MarkdownReport.fmt(a.diskLoads(), 0),
                    MarkdownReport.fmt(a.adapterCachedPct(), 1), MarkdownReport.fmt(a.baseCachedPct(), 1),
                    MarkdownReport.fmt(a.hitGapPoints(), 1), MarkdownReport.fmt(a.adapterOraclePct(), 1),
                    MarkdownReport.fmt(a.baseOraclePct(), 1)));
        }
        return md.toString();
    }
}
