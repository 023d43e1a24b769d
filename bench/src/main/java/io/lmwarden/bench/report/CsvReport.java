package io.lmwarden.bench.report;

import java.util.List;
import java.util.Locale;

/** results.csv: one row per policy and stage, exactly the published columns plus oracle and errors. */
public final class CsvReport {

    public static final String HEADER = "policy,sessions,sessions_per_hour,output_tokens_per_min,ttfb_p50_s,ttfb_p95_s,"
            + "replicas_busy,prefix_hit_pct,stayed_pct,oracle_hit_pct,errors,session_time_p50_s,session_time_p95_s,"
            + "queue_wait_p50_s,queue_wait_p95_s,queue_wait_max_s,admitted,queued,rejected";

    private CsvReport() {
    }

    public static String render(List<StageResult> rows) {
        StringBuilder csv = new StringBuilder(HEADER).append('\n');
        for (StageResult r : rows) {
            csv.append(String.format(Locale.ROOT, "%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%d,%d,%d%n",
                    quote(r.policy()), r.sessions(), num(r.throughput().sessionsPerHour(), 1),
                    num(r.throughput().outputTokensPerMin(), 1), num(r.latency().ttfbP50(), 3), num(r.latency().ttfbP95(), 3),
                    num(r.replicasBusy(), 2), num(r.cache().prefixHitPct(), 1), num(r.cache().stayedPct(), 1),
                    num(r.cache().oracleHitPct(), 1), r.errors().count(), num(r.sessionTimes().p50(), 1),
                    num(r.sessionTimes().p95(), 1), num(r.queue().waitP50(), 2), num(r.queue().waitP95(), 2),
                    num(r.queue().waitMax(), 2), r.queue().admitted(), r.queue().queued(), r.queue().rejected()));
        }
        return csv.toString();
    }

    private static String num(double v, int decimals) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }
}
