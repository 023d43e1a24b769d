package io.lmwarden.router.diagnostics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prompt tokens (cached and computed) and output tokens over time, in memory: per-second buckets for
 * the last two minutes (the live chart) and per-minute buckets for the last hour.
 */
public final class TokenRates {

    private static final int SECONDS = 120;
    private static final int MINUTES = 60;

    private static final class Bucket {
        long start = Long.MIN_VALUE;
        long cached;
        long computed;
        long output;
        long requests;

        void reset(long s) {
            start = s;
            cached = 0;
            computed = 0;
            output = 0;
            requests = 0;
        }
    }

    private final Bucket[] seconds = newBuckets(SECONDS);
    private final Bucket[] minutes = newBuckets(MINUTES);

    private static Bucket[] newBuckets(int n) {
        Bucket[] b = new Bucket[n];
        for (int i = 0; i < n; i++) {
            b[i] = new Bucket();
        }
        return b;
    }

    public synchronized void record(long epochMillis, long cached, long computed, long output) {
        add(seconds, epochMillis / 1000, cached, computed, output);
        add(minutes, epochMillis / 60_000, cached, computed, output);
    }

    private static void add(Bucket[] ring, long slot, long cached, long computed, long output) {
        Bucket b = ring[(int) Math.floorMod(slot, (long) ring.length)];
        if (b.start != slot) {
            b.reset(slot);
        }
        b.cached += cached;
        b.computed += computed;
        b.output += output;
        b.requests++;
    }

    /** Rates over the last {@code windowSeconds} complete and current seconds. */
    public synchronized Map<String, Object> now(long epochMillis, int windowSeconds) {
        long nowSlot = epochMillis / 1000;
        long cached = 0;
        long computed = 0;
        long output = 0;
        for (Bucket b : seconds) {
            if (b.start > nowSlot - windowSeconds && b.start <= nowSlot) {
                cached += b.cached;
                computed += b.computed;
                output += b.output;
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("promptTokensPerSec", (double) (cached + computed) / windowSeconds);
        m.put("cachedTokensPerSec", (double) cached / windowSeconds);
        m.put("computedTokensPerSec", (double) computed / windowSeconds);
        m.put("outputTokensPerSec", (double) output / windowSeconds);
        m.put("cachedShare", cached + computed == 0 ? null : (double) cached / (cached + computed));
        return m;
    }

    /** Per-second points for the live chart, oldest first, gaps filled with zeros. */
    public synchronized List<Map<String, Object>> recent(long epochMillis) {
        long nowSlot = epochMillis / 1000;
        List<Map<String, Object>> out = new ArrayList<>(SECONDS);
        for (long s = nowSlot - SECONDS + 1; s <= nowSlot; s++) {
            Bucket b = seconds[(int) Math.floorMod(s, (long) SECONDS)];
            boolean live = b.start == s;
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("t", s * 1000);
            p.put("cachedTokensPerSec", live ? b.cached : 0);
            p.put("computedTokensPerSec", live ? b.computed : 0);
            p.put("outputTokensPerSec", live ? b.output : 0);
            out.add(p);
        }
        return out;
    }

    /** Per-minute buckets of the last hour that saw traffic, oldest first. */
    public synchronized List<Map<String, Object>> lastHour(long epochMillis) {
        long nowSlot = epochMillis / 60_000;
        List<Map<String, Object>> out = new ArrayList<>();
        for (long s = nowSlot - MINUTES + 1; s <= nowSlot; s++) {
            Bucket b = minutes[(int) Math.floorMod(s, (long) MINUTES)];
            if (b.start != s) {
                continue;
            }
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("t", s * 60_000);
            p.put("promptTokens", b.cached + b.computed);
            p.put("cachedTokens", b.cached);
            p.put("computedTokens", b.computed);
            p.put("outputTokens", b.output);
            p.put("requests", b.requests);
            out.add(p);
        }
        return out;
    }
}
