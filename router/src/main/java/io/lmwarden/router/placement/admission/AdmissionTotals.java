package io.lmwarden.router.placement.admission;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** What admission has done since the router started, for {@code /api/replicas} and the capacity advisor. */
final class AdmissionTotals {

    final AtomicLong admittedAtOnce = new AtomicLong();
    final AtomicLong admittedFromQueue = new AtomicLong();
    final AtomicLong queued = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong revokedUnderPressure = new AtomicLong();
    final AtomicLong yieldedSlice = new AtomicLong();
    final AtomicLong admittedOverBudget = new AtomicLong();
    final AtomicLong rejectedAtOnce = new AtomicLong();
    /** Steps of sessions in progress admitted over the budget because they waited the bound (queueWaitBound). */
    final AtomicLong admittedAtWaitBound = new AtomicLong();
    /** Newcomers admitted within the budget once their reply was budgeted at the pool's recent replies. */
    final AtomicLong admittedWithSmallerReply = new AtomicLong();

    Map<String, Object> asMap(int residentSessions) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("admittedAtOnce", admittedAtOnce.get());
        m.put("admittedFromQueue", admittedFromQueue.get());
        m.put("queued", queued.get());
        m.put("rejected", rejected.get());
        m.put("revokedUnderPressure", revokedUnderPressure.get());
        m.put("yieldedSlice", yieldedSlice.get());
        m.put("admittedOverBudget", admittedOverBudget.get());
        m.put("rejectedAtOnce", rejectedAtOnce.get());
        m.put("admittedAtWaitBound", admittedAtWaitBound.get());
        m.put("admittedWithSmallerReply", admittedWithSmallerReply.get());
        m.put("residentSessions", residentSessions);
        return m;
    }
}
