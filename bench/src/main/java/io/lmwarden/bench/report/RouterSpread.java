package io.lmwarden.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How one stage's steps spread over the target's routers, and whether each session kept one home while
 * its steps went from router to router.
 *
 * @param stepsPerRouter    steps sent to each router, by the router's index in the target (one entry per router)
 * @param sessions          sessions with at least two successful steps that ended in the stage
 * @param onSeveralReplicas of those, sessions whose steps in the stage ran on two or more replicas: "split" in the
 *                          widest sense; one router moves sessions too (spill, admission), and says so
 * @param unannouncedMoves  follow-up steps that ran on another replica than the session's previous step while the
 *                          router called them STICKY or NEW: a router that did not know (or disagreed on) the
 *                          session's home; 0 when the routers agree
 * @param movesByDecision   follow-up steps that ran on another replica than the session's previous step, by the
 *                          router's decision ({@code DRAIN}, {@code SPILL}, {@code FALLBACK}, …)
 * @param refusedConnections steps whose connection to a router was refused (no router listened on its port: one
 *                          restarting with no other to take its steps); each is a failed step, counted among the errors
 *                          too, and the session it belonged to ends there
 */
public record RouterSpread(List<Integer> stepsPerRouter, int sessions, int onSeveralReplicas, int unannouncedMoves,
                           Map<String, Integer> movesByDecision, int refusedConnections) {

    public static final RouterSpread NONE = new RouterSpread(List.of(), 0, 0, 0);

    public RouterSpread {
        stepsPerRouter = List.copyOf(stepsPerRouter);
        movesByDecision = java.util.Collections.unmodifiableMap(new TreeMap<>(movesByDecision));
    }

    public RouterSpread(List<Integer> stepsPerRouter, int sessions, int onSeveralReplicas, int unannouncedMoves) {
        this(stepsPerRouter, sessions, onSeveralReplicas, unannouncedMoves, Map.of(), 0);
    }

    /** "DRAIN 12, SPILL 3", or "–". */
    public String describeMoves() {
        return movesByDecision.isEmpty() ? "–" : String.join(", ", movesByDecision.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).toList());
    }

    public int routers() {
        return stepsPerRouter.size();
    }

    /** Totals over repeats: a split in one repeat must not vanish in a median. */
    public static RouterSpread sum(List<RouterSpread> spreads) {
        List<Integer> steps = new ArrayList<>();
        int sessions = 0;
        int several = 0;
        int unannounced = 0;
        int refused = 0;
        Map<String, Integer> moves = new TreeMap<>();
        for (RouterSpread s : spreads) {
            refused += s.refusedConnections;
            s.movesByDecision.forEach((d, n) -> moves.merge(d, n, Integer::sum));
            for (int i = 0; i < s.stepsPerRouter.size(); i++) {
                if (steps.size() <= i) {
                    steps.add(0);
                }
                steps.set(i, steps.get(i) + s.stepsPerRouter.get(i));
            }
            sessions += s.sessions;
            several += s.onSeveralReplicas;
            unannounced += s.unannouncedMoves;
        }
        return new RouterSpread(steps, sessions, several, unannounced, moves, refused);
    }

    /** "120 / 118 / 121" */
    public String describeSteps() {
        return stepsPerRouter.isEmpty() ? "–" : String.join(" / ", stepsPerRouter.stream().map(String::valueOf).toList());
    }
}
