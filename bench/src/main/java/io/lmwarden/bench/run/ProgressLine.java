package io.lmwarden.bench.run;

import io.lmwarden.bench.report.StageResult;

import java.util.Locale;

/** The one line per stage the bench prints on stderr. */
public final class ProgressLine {

    private ProgressLine() {
    }

    public static String of(StageResult r, double wallSeconds) {
        return String.format(Locale.ROOT,
                "[%s, repeat %d] %d sessions: %.0f sessions/h, %.0f output tok/min, TTFB p50 %.2f s p95 %.2f s, "
                        + "busy %.2f, prefix hits %.1f%% (oracle %.1f%%), stayed %.1f%%, errors %d, steps %d, session time p50 %.0f s p95 %.0f s, queued %d (wait p50 %.1f s p95 %.1f s max %.1f s), rejected %d (%.1f s wall, bench CPU %.2f cores)",
                r.policy(), r.repeat(), r.sessions(), r.throughput().sessionsPerHour(), r.throughput().outputTokensPerMin(),
                r.latency().ttfbP50(), r.latency().ttfbP95(), r.replicasBusy(), r.cache().prefixHitPct(), r.cache().oracleHitPct(),
                r.cache().stayedPct(), r.errors().count(), r.throughput().steps(), r.sessionTimes().p50(), r.sessionTimes().p95(),
                r.queue().queued(), r.queue().waitP50(), r.queue().waitP95(), r.queue().waitMax(), r.queue().rejected(), wallSeconds,
                r.benchCpuCores())
                + String.format(Locale.ROOT, "; Little's-law session time %s%.0f s, %d unfinished%s", r.sessionTimes().littlesLawAtLeast()
                        ? "≥ " : "", r.sessionTimes().littlesLaw(), r.sessionTimes().unfinished(), r.sessionTimes().unfinished() == 0 ? ""
                        : String.format(Locale.ROOT, " (oldest %.0f s)", r.sessionTimes().unfinishedAgeMax()))
                + (r.queue().rejectedInProgress() == 0 ? "" : "; rejected in progress " + r.queue().rejectedInProgress())
                + (r.errors().causes().isEmpty() ? "" : "; errors by cause " + r.errors().causes())
                + (r.routerSpread().routers() < 1 ? "" : String.format(Locale.ROOT,
                "; steps per router %s, sessions on 2+ replicas %d of %d, unannounced moves %d", r.routerSpread().describeSteps(),
                r.routerSpread().onSeveralReplicas(), r.routerSpread().sessions(), r.routerSpread().unannouncedMoves()))
                + (!r.adapters().present() ? "" : String.format(Locale.ROOT,
                "; adapters: %d steps, slot waits %.0f (%.2f%% of steps), disk loads %.0f, hits adapter %.1f%% vs base %.1f%%",
                r.adapters().adapterSteps(), r.adapters().slotWaits(), r.adapters().slotWaitPct(), r.adapters().diskLoads(),
                r.adapters().adapterCachedPct(), r.adapters().baseCachedPct()));
    }
}
