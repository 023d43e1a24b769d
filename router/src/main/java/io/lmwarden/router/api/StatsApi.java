package io.lmwarden.router.api;

import io.lmwarden.router.diagnostics.TokenRates;
import io.lmwarden.router.stats.RequestAccounting;
import io.vertx.ext.web.RoutingContext;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code GET /api/stats}: prompt and output tokens per second, per minute over the last hour, and the diagnostics' totals. */
public final class StatsApi {

    private final TokenRates tokenRates;
    private final RequestAccounting accounting;

    public StatsApi(TokenRates tokenRates, RequestAccounting accounting) {
        this.tokenRates = tokenRates;
        this.accounting = accounting;
    }

    public void get(RoutingContext rc) {
        JsonReplies.send(rc, 200, stats());
    }

    Map<String, Object> stats() {
        long now = System.currentTimeMillis();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("windowSeconds", 3600);
        m.put("bucketSeconds", 60);
        m.put("now", tokenRates.now(now, 10));
        List<Map<String, Object>> series = tokenRates.lastHour(now);
        long cached = 0;
        long computed = 0;
        long output = 0;
        for (Map<String, Object> b : series) {
            cached += (Long) b.get("cachedTokens");
            computed += (Long) b.get("computedTokens");
            output += (Long) b.get("outputTokens");
        }
        Map<String, Object> hour = new LinkedHashMap<>();
        hour.put("promptTokens", cached + computed);
        hour.put("cachedTokens", cached);
        hour.put("computedTokens", computed);
        hour.put("outputTokens", output);
        hour.put("cachedShare", cached + computed == 0 ? null : JsonReplies.round((double) cached / (cached + computed)));
        m.put("lastHour", hour);
        m.put("series", series);
        m.put("recent", tokenRates.recent(now));
        Map<String, Object> diag = new LinkedHashMap<>();
        diag.put("requests", accounting.endedRequests());
        diag.put("prefixBreaks", accounting.prefixBreaks());
        diag.put("cacheMisses", accounting.cacheMisses());
        diag.put("queueAteGain", accounting.queueAteGain());
        m.put("diagnostics", diag);
        return m;
    }
}
