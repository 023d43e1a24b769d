package io.lmwarden.bench.run;

import java.util.ArrayList;
import java.util.List;

/** Where finished steps go; written on a driver's context, read by the stage runner. */
public final class StepLog {
    private final List<StepRecord> records = new ArrayList<>();

    synchronized void add(StepRecord r) {
        records.add(r);
    }

    /** How many steps have ended since {@code fromNanos}, without copying them. */
    public synchronized int endedSince(long fromNanos) {
        int n = 0;
        for (StepRecord r : records) {
            if (r.endNanos() >= fromNanos) {
                n++;
            }
        }
        return n;
    }

    public synchronized List<StepRecord> endedWithin(long fromNanos, long toNanos) {
        List<StepRecord> out = new ArrayList<>();
        for (StepRecord r : records) {
            if (r.endNanos() >= fromNanos && r.endNanos() < toNanos) {
                out.add(r);
            }
        }
        return out;
    }
}
