package io.lmwarden.router.placement.admission;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the queue's waits come from: each queued step's wait split by what it waited behind ({@link WaitCause}),
 * looked at on every pump (the time since the last look goes to the cause found then), summed per lane since start,
 * and for the last {@value #RECENT} steps that left the queue, the causes of the tail: the shares of the waits of the
 * steps at or above the lane's 95th percentile. Not thread-safe: the controller's lock guards it.
 */
final class WaitCauses {

    static final int RECENT = 4096;
    private static final WaitCause[] CAUSES = WaitCause.values();

    private static final class Open {
        WaitCause cause;
        long sinceNanos;
        final long[] nanos = new long[CAUSES.length];
    }

    /** A step that left the queue: its lane, its whole wait and its split. */
    private record Left(boolean inProgress, long waitedNanos, long[] nanos) {
    }

    private final Map<Long, Open> open = new HashMap<>();
    private final ArrayDeque<Left> recent = new ArrayDeque<>();
    private final long[][] totalNanos = new long[2][CAUSES.length];
    private final long[] steps = new long[2];

    /** The step (queue entry {@code seq}) starts waiting, behind {@code cause}. */
    void queued(long seq, WaitCause cause, long now) {
        Open o = new Open();
        o.cause = cause;
        o.sinceNanos = now;
        open.put(seq, o);
    }

    /** A pump found the step still waiting, now behind {@code cause}. */
    void looked(long seq, WaitCause cause, long now) {
        Open o = open.get(seq);
        if (o != null) {
            accrue(o, now);
            o.cause = cause;
        }
    }

    /** The step left the queue (admitted, turned away, or its client left): its wait per cause, in nanoseconds. */
    long[] left(long seq, boolean inProgress, long waitedNanos, long now) {
        Open o = open.remove(seq);
        if (o == null) {
            return new long[CAUSES.length];
        }
        accrue(o, now);
        int lane = inProgress ? 1 : 0;
        steps[lane]++;
        for (int i = 0; i < CAUSES.length; i++) {
            totalNanos[lane][i] += o.nanos[i];
        }
        recent.addLast(new Left(inProgress, waitedNanos, o.nanos));
        if (recent.size() > RECENT) {
            recent.removeFirst();
        }
        return o.nanos;
    }

    private static void accrue(Open o, long now) {
        o.nanos[o.cause.ordinal()] += Math.max(0, now - o.sinceNanos);
        o.sinceNanos = now;
    }

    static WaitCause cause(int ordinal) {
        return CAUSES[ordinal];
    }

    /** Per lane ({@code inProgress}, {@code newcomers}): steps, seconds by cause since start, and the recent tail's causes. */
    Map<String, Object> report() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("inProgress", lane(true));
        m.put("newcomers", lane(false));
        return m;
    }

    private Map<String, Object> lane(boolean inProgress) {
        int lane = inProgress ? 1 : 0;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("steps", steps[lane]);
        m.put("secondsByCause", byCause(totalNanos[lane], 1e9));
        List<Left> mine = new ArrayList<>();
        for (Left l : recent) {
            if (l.inProgress() == inProgress) {
                mine.add(l);
            }
        }
        if (mine.isEmpty()) {
            return m;
        }
        mine.sort(Comparator.comparingLong(Left::waitedNanos));
        long p95 = mine.get(Math.min(mine.size() - 1, (int) Math.ceil(0.95 * mine.size()) - 1)).waitedNanos();
        long[] tail = new long[CAUSES.length];
        long tailTotal = 0;
        int tailSteps = 0;
        for (Left l : mine) {
            if (l.waitedNanos() >= p95) {
                tailSteps++;
                for (int i = 0; i < CAUSES.length; i++) {
                    tail[i] += l.nanos()[i];
                    tailTotal += l.nanos()[i];
                }
            }
        }
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("recentSteps", mine.size());
        t.put("p95Seconds", round(p95 / 1e9));
        t.put("maxSeconds", round(mine.get(mine.size() - 1).waitedNanos() / 1e9));
        t.put("stepsAtOrAboveP95", tailSteps);
        t.put("shareByCause", byCause(tail, Math.max(1, tailTotal)));
        m.put("tail", t);
        return m;
    }

    private static Map<String, Object> byCause(long[] nanos, double divisor) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < CAUSES.length; i++) {
            m.put(CAUSES[i].label(), round(nanos[i] / divisor));
        }
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
