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
                        + "busy %.2f, prefix hits %.1f%% (oracle %.1f%%), stayed %.1f%%, errors %d, steps %d (%.1f s wall, bench CPU %.2f cores)",
                r.policy(), r.repeat(), r.sessions(), r.sessionsPerHour(), r.outputTokensPerMin(), r.ttfbP50(), r.ttfbP95(),
                r.replicasBusy(), r.prefixHitPct(), r.oracleHitPct(), r.stayedPct(), r.errors(), r.steps(), wallSeconds, r.benchCpuCores())
                + (r.errorCauses().isEmpty() ? "" : "; errors by cause " + r.errorCauses());
    }
}
