package io.lmwarden.bench.workload;

import java.util.List;

/**
 * Which class the next new session belongs to: smooth weighted round robin over the shares, so any prefix of the
 * sequence is as close to the shares as whole sessions allow (1:1 alternates exactly). Deterministic.
 */
public final class ClassSchedule {
    private final double[] weights;
    private final double total;
    private final double[] current;

    public ClassSchedule(List<SessionClass> classes) {
        weights = classes.stream().mapToDouble(SessionClass::share).toArray();
        total = java.util.Arrays.stream(weights).sum();
        current = new double[weights.length];
    }

    public int next() {
        int best = 0;
        for (int i = 0; i < weights.length; i++) {
            current[i] += weights[i];
            if (current[i] > current[best]) {
                best = i;
            }
        }
        current[best] -= total;
        return best;
    }
}
