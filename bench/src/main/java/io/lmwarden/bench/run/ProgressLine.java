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
                r.policy(), r.repeat(), r.sessions(), r.sessionsPerHour(), r.outputTokensPerMin(), r.ttfbP50(), r.ttfbP95(),
                r.replicasBusy(), r.prefixHitPct(), r.oracleHitPct(), r.stayedPct(), r.errors(), r.steps(), r.sessionTimeP50(), r.sessionTimeP95(), r.queued(), r.queueWaitP50(), r.queueWaitP95(),
                r.queueWaitMax(), r.rejected(), wallSeconds, r.benchCpuCores())
                + (r.errorCauses().isEmpty() ? "" : "; errors by cause " + r.errorCauses())
                + (r.routerSpread().routers() < 1 ? "" : String.format(Locale.ROOT,
                "; steps per router %s, sessions on 2+ replicas %d of %d, unannounced moves %d", r.routerSpread().describeSteps(),
                r.routerSpread().onSeveralReplicas(), r.routerSpread().sessions(), r.routerSpread().unannouncedMoves()));
    }
}
