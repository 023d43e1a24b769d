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
        m.put("residentSessions", residentSessions);
        return m;
    }
}
