package io.lmwarden.bench.run;

import io.lmwarden.bench.report.RouterSpread;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Counts a stage's steps per router, the sessions that did not keep one replica, and the connections routers refused. */
public final class RouterSpreadMeter {

    private RouterSpreadMeter() {
    }

    /** @param routers how many routers the target has (steps carry their index) */
    public static RouterSpread measure(List<StepRecord> steps, int routers) {
        int[] perRouter = new int[routers];
        Map<Integer, Set<String>> replicasBySession = new HashMap<>();
        Map<Integer, Integer> okSteps = new HashMap<>();
        int unannounced = 0;
        Map<String, Integer> moves = new HashMap<>();
        int refused = 0;
        for (StepRecord r : steps) {
            if (r.router() >= 0 && r.router() < routers) {
                perRouter[r.router()]++;
            }
            if (ErrorCause.REFUSED.equals(ErrorCause.of(r.error()))) {
                refused++;
            }
            if (!r.ok() || r.replica() == null) {
                continue;
            }
            okSteps.merge(r.session(), 1, Integer::sum);
            replicasBySession.computeIfAbsent(r.session(), k -> new HashSet<>()).add(r.replica());
            if (Boolean.FALSE.equals(r.stayed())) {
                moves.merge(r.decision() == null ? "?" : r.decision(), 1, Integer::sum);
                if ("STICKY".equals(r.decision()) || "NEW".equals(r.decision())) {
                    unannounced++;
                }
            }
        }
        int sessions = 0;
        int several = 0;
        for (Map.Entry<Integer, Integer> e : okSteps.entrySet()) {
            if (e.getValue() >= 2) {
                sessions++;
                if (replicasBySession.get(e.getKey()).size() >= 2) {
                    several++;
                }
            }
        }
        return new RouterSpread(java.util.Arrays.stream(perRouter).boxed().toList(), sessions, several, unannounced, moves,
                refused);
    }
}
