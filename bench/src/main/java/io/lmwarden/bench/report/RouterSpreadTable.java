package io.lmwarden.bench.report;

import java.util.List;
import java.util.Locale;

/** report.md's section on runs through several routers: steps per router and the sessions that left their replica. */
final class RouterSpreadTable {

    private RouterSpreadTable() {
    }

    static String render(List<StageResult> medians) {
        StringBuilder md = new StringBuilder("\n## Routers and splits\n\n");
        md.append("Each step of a session goes to the next router in turn (client-side round robin), so its steps reach ")
                .append("different routers. Counts are totals over repeats. *On 2+ replicas*: sessions whose steps in the stage ")
                .append("ran on two or more replicas (one router moves sessions too, by spill and admission, and says so). ")
                .append("*Unannounced moves*: follow-ups that ran on another replica than the step before while the router ")
                .append("called them STICKY or NEW, i.e. it did not know the session's home. *Moves*: follow-ups that ran on ")
                .append("another replica than the step before, by the router's decision (DRAIN: the session's home was drained).\n\n");
        md.append("| Variant | Sessions | Routers | Steps per router | Sessions with 2+ steps | On 2+ replicas | Unannounced moves | Moves |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (StageResult r : medians) {
            RouterSpread s = r.routerSpread();
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %d | %d (%.1f %%) | %d | %s |%n", r.policy(), r.sessions(),
                    s.routers(), s.describeSteps(), s.sessions(), s.onSeveralReplicas(),
                    s.sessions() == 0 ? 0.0 : 100.0 * s.onSeveralReplicas() / s.sessions(), s.unannouncedMoves(), s.describeMoves()));
        }
        return md.toString();
    }
}
