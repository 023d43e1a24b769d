package io.lmwarden.bench.run;

import io.lmwarden.bench.pool.PoolEvents;
import io.lmwarden.bench.report.Timeline;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a stage's steps into windows of workload time and works out the Day-2 goal figures around the pool's operations
 * ({@link Timeline}). A step counts in the window in which it ended, as in the stage tables.
 */
public final class TimelineMeter {

    /** Issue 26: the hit rate is to be back within 5 points in the 2 minutes after the last replica is Ready. */
    static final double AFTER_READY_SECONDS = 120;
    /** "Within one stage": the bench's default stage length. */
    static final double ONE_STAGE_SECONDS = 180;

    private TimelineMeter() {
    }

    /**
     * @param variantStartNanos the origin of every time (the variant's start, System.nanoTime)
     * @param fromNanos         the measurement window's start
     * @param toNanos           and its end
     */
    public static Timeline measure(List<StepRecord> steps, List<PoolEvents.Event> events, long variantStartNanos, long fromNanos,
                                   long toNanos, TimeScale clock, Duration window) {
        double from = seconds(fromNanos, variantStartNanos, clock);
        double to = seconds(toNanos, variantStartNanos, clock);
        double width = window.toMillis() / 1000.0;
        List<Timeline.Window> windows = new ArrayList<>();
        // Aligned to multiples of the width from the variant's start, so windows line up with the faults' times.
        for (double a = Math.floor(from / width) * width; a < to; a += width) {
            double lo = Math.max(a, from);
            double hi = Math.min(a + width, to);
            if (hi > lo) {
                windows.add(window(steps, lo, hi, variantStartNanos, clock));
            }
        }
        List<Timeline.Phase> phases = events.stream().map(e -> new Timeline.Phase(e.atSeconds(), e.subject(), e.phase(), e.detail()))
                .toList();
        double start = events.stream().filter(e -> PoolEvents.BEGIN.equals(e.phase())).mapToDouble(PoolEvents.Event::atSeconds)
                .min().orElse(Double.NaN);
        double end = events.stream().filter(e -> PoolEvents.END.equals(e.phase())).mapToDouble(PoolEvents.Event::atSeconds)
                .max().orElse(Double.NaN);
        double lastReady = events.stream().filter(e -> PoolEvents.READY.equals(e.phase())).mapToDouble(PoolEvents.Event::atSeconds)
                .max().orElse(Double.NaN);
        // Scale-down has no Ready: its figures run to the operation's end.
        double back = Double.isNaN(lastReady) ? end : lastReady;
        Timeline.Window before = Double.isNaN(start) ? null : span(steps, from, Math.min(start, to), variantStartNanos, clock);
        Timeline.Window during = Double.isNaN(start) || Double.isNaN(back) ? null : span(steps, Math.max(start, from), Math.min(back, to),
                variantStartNanos, clock);
        double afterEnd = Math.min(back + AFTER_READY_SECONDS, to);
        Timeline.Window after = Double.isNaN(back) || afterEnd <= back ? null : span(steps, back, afterEnd, variantStartNanos, clock);
        Timeline.Window nextStage = Double.isNaN(back) || back >= to ? null
                : span(steps, back, Math.min(back + ONE_STAGE_SECONDS, to), variantStartNanos, clock);
        Timeline.Window later = Double.isNaN(back) || back + ONE_STAGE_SECONDS >= to ? null
                : span(steps, back + ONE_STAGE_SECONDS, to, variantStartNanos, clock);
        Timeline.Window all = span(steps, from, to, variantStartNanos, clock);
        Timeline.Figures figures = new Timeline.Figures(all.lostBeforeFirstByte(), all.cutStreams(), start, end, lastReady,
                before == null ? Double.NaN : before.outputTokensPerMin(),
                during == null ? Double.NaN : during.outputTokensPerMin(),
                before == null ? Double.NaN : before.cachedPct(),
                after == null ? Double.NaN : after.cachedPct(),
                after == null ? 0 : afterEnd - back,
                before == null ? Double.NaN : before.queueWaitP95(),
                nextStage == null ? Double.NaN : nextStage.queueWaitP95(),
                later == null ? Double.NaN : later.queueWaitP95());
        return new Timeline(width, phases, windows, figures);
    }

    /** The steps that ended in [lo, max(lo, hi)): an empty span when the operation starts before the window. */
    private static Timeline.Window span(List<StepRecord> steps, double lo, double hi, long originNanos, TimeScale clock) {
        return window(steps, lo, Math.max(lo, hi), originNanos, clock);
    }

    /** The steps that ended in [lo, hi) seconds from the origin. */
    static Timeline.Window window(List<StepRecord> steps, double lo, double hi, long originNanos, TimeScale clock) {
        Histogram queueWait = new Histogram(36_000_000_000L, 3);
        int count = 0;
        long output = 0;
        long cached = 0;
        long prompt = 0;
        int lost = 0;
        int cut = 0;
        int moves = 0;
        int queued = 0;
        java.util.Map<String, Integer> byReplica = new java.util.HashMap<>();
        for (StepRecord r : steps) {
            double at = seconds(r.endNanos(), originNanos, clock);
            if (at < lo || at >= hi) {
                continue;
            }
            count++;
            // Every step, a step the queue did not hold with 0: the p95 an agent sees, not only the queued ones'.
            queueWait.recordValue(Math.max(0, Math.min(Math.round(clock.workloadSeconds(r.queueWaitNanos()) * 1e6),
                    queueWait.getHighestTrackableValue())));
            if (r.queueWaitNanos() > 0) {
                queued++;
            }
            if (!r.ok()) {
                if (r.firstTokenNanos() > 0) {
                    cut++;
                } else {
                    lost++;
                }
                continue;
            }
            output += r.outputTokens();
            if (r.replica() != null) {
                byReplica.merge(r.replica(), 1, Integer::sum);
            }
            if (r.cachedTokens() >= 0) {
                cached += r.cachedTokens();
                prompt += r.promptTokens();
            }
            if (Boolean.FALSE.equals(r.stayed())) {
                moves++;
            }
        }
        double minutes = (hi - lo) / 60.0;
        return new Timeline.Window(lo, hi, count, minutes <= 0 ? Double.NaN : output / minutes,
                prompt == 0 ? Double.NaN : 100.0 * cached / prompt, lost, cut, queued,
                queueWait.getTotalCount() == 0 ? Double.NaN : queueWait.getValueAtPercentile(95) / 1e6, moves, byReplica);
    }

    private static double seconds(long nanos, long originNanos, TimeScale clock) {
        return clock.workloadSeconds(nanos - originNanos);
    }
}
