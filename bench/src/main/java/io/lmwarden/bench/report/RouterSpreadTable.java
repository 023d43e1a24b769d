package io.lmwarden.bench.report;

import java.util.List;
import java.util.Locale;

/** report.md's section on runs through several routers: steps per router and the sessions that left their replica. */
final class RouterSpreadTable {

    private RouterSpreadTable() {
    }

    /** @param stepsPerRouter consecutive steps a session sends to one router before it moves to the next */
    static String render(List<StageResult> medians, int stepsPerRouter) {
        StringBuilder md = new StringBuilder("\n## Routers and splits\n\n");
        md.append(stepsPerRouter == 1 ? "Each step of a session goes to the next router in turn (client-side round robin), so its steps reach "
                        + "different routers."
                        : "A session sends " + stepsPerRouter + " consecutive steps to one router, then moves to the next (a client "
                        + "whose connection ends every " + stepsPerRouter + " steps).")
                .append(" A router being restarted is out of rotation: its steps go to the next one in rotation, or, with no ")
                .append("other, to it anyway (a single router's clients have nowhere else to go). Counts are totals over repeats. *On 2+ replicas*: sessions whose steps in the stage ")
                .append("ran on two or more replicas (one router moves sessions too, by spill and admission, and says so). ")
                .append("*Unannounced moves*: follow-ups that ran on another replica than the step before while the router ")
                .append("called them STICKY or NEW, i.e. it did not know the session's home. *Moves*: follow-ups that ran on ")
                .append("another replica than the step before, by the router's decision (DRAIN: the session's home was drained). ")
                .append("*Refused connections*: steps whose connection the router's port refused (they failed; their sessions ")
                .append("ended).\n\n");
        md.append("| Variant | Sessions | Routers | Steps per router | Sessions with 2+ steps | On 2+ replicas | Unannounced moves | Moves"
                + " | Refused connections |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (StageResult r : medians) {
            RouterSpread s = r.routerSpread();
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %d | %d (%.1f %%) | %d | %s | %d |%n", r.policy(), r.sessions(),
                    s.routers(), s.describeSteps(), s.sessions(), s.onSeveralReplicas(),
                    s.sessions() == 0 ? 0.0 : 100.0 * s.onSeveralReplicas() / s.sessions(), s.unannouncedMoves(), s.describeMoves(),
                    s.refusedConnections()));
        }
        return md.toString();
    }
}
