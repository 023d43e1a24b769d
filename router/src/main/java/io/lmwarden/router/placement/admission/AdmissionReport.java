package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;

import java.util.Map;

/**
 * What admission reports: its totals, whether the budget applies and the wait forecast's error ({@code /api/replicas}),
 * the budget's use (metrics).
 */
final class AdmissionReport {

    private final ResidencyTable residencies;
    private final AdmissionTotals totals;
    private final EngagementGate gate;
    private final QueueScheduler scheduler;

    AdmissionReport(ResidencyTable residencies, AdmissionTotals totals, EngagementGate gate, QueueScheduler scheduler) {
        this.residencies = residencies;
        this.totals = totals;
        this.gate = gate;
        this.scheduler = scheduler;
    }

    /**
     * Totals since start, under {@code thrash} whether the budget applies and the evidence, under {@code forecast} the
     * newcomers' wait forecast and its error, under {@code waitedBehind} what the queue's waits waited behind.
     */
    Map<String, Object> totals(long now) {
        Map<String, Object> m = totals.asMap(residencies.size());
        m.put("thrash", gate.state(now));
        m.put("forecast", scheduler.forecastReport(now));
        m.put("waitedBehind", scheduler.waitCausesReport());
        return m;
    }

    /**
     * What the resident sessions (this router's and its peers') hold of the KV budget of the replicas that take new
     * work, 0..1 (an empty replica may take a session larger than its budget: counted as full): an autoscaler's signal.
     */
    double budgetUsedRatio(PoolSnapshot snap) {
        long used = 0;
        long budget = 0;
        boolean anyUsed = false;
        for (ReplicaView r : snap.replicas()) {
            if (r.ready()) {
                long b = residencies.budgetBlocks(r);
                long u = residencies.usedBlocks(r.id()) + b - residencies.availableBlocks(r);
                anyUsed |= u > 0;
                used += Math.min(b, u);
                budget += b;
            }
        }
        return budget == 0 ? (anyUsed ? 1 : 0) : (double) used / budget;
    }

    /** Budget of a replica in tokens. */
    long budgetTokens(ReplicaView r) {
        return residencies.budgetBlocks(r) * PrefixIndexes.TOKENS_PER_BLOCK;
    }
}
