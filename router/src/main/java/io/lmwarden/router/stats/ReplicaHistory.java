package io.lmwarden.router.stats;

import io.lmwarden.router.pool.ScrapedMetrics;
import io.lmwarden.router.pool.ReplicaState;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The recent past of each replica for the UI: its request count and its engine's prefix-cache
 * counters, sampled once a second and kept for {@link #KEPT_MILLIS}. The engine's own hit rate runs
 * since the engine started; differences of these samples give the hit rate of the last minutes, and
 * the per-replica chart of requests and hits.
 *
 * <p>Increases are summed pair by pair, as Prometheus's {@code increase()} does, so an engine that
 * restarts (its counters fall back to 0) costs one sample, not a negative rate.
 */
public final class ReplicaHistory {

    /** The longest window the API can be asked for. */
    public static final long KEPT_MILLIS = 300_000;
    /** How often {@link #sample} is called: the recent hit rate and the chart move in steps of this. */
    public static final long SAMPLE_MILLIS = 1000;
    /** The chart's bucket. */
    public static final long BUCKET_MILLIS = 10_000;

    /**
     * Cumulative counters at one instant; queries and hits are -1 while the engine has not been scraped; the host
     * tier's (vLLM's external prefix cache: tokens looked up there and loaded from it) are -1 without a tier.
     */
    record Sample(long epochMillis, long requests, double prefixQueries, double prefixHits, double hostQueries, double hostHits) {
        Sample(long epochMillis, long requests, double prefixQueries, double prefixHits) {
            this(epochMillis, requests, prefixQueries, prefixHits, -1, -1);
        }

        boolean hostKnown() {
            return hostQueries >= 0;
        }

        boolean engineKnown() {
            return prefixQueries >= 0;
        }
    }

    /**
     * What happened over a window: requests placed, and the engine's prefix-cache tokens queried and hit.
     * {@code engineSinceMillis}: the first sample in it with the engine's counters (they start with the
     * replica's first scrape), null when there is none yet.
     */
    public record Window(long fromMillis, long toMillis, long requests, double prefixQueries, double prefixHits, Long engineSinceMillis,
                         double hostQueries, double hostHits) {
        public Window(long fromMillis, long toMillis, long requests, double prefixQueries, double prefixHits, Long engineSinceMillis) {
            this(fromMillis, toMillis, requests, prefixQueries, prefixHits, engineSinceMillis, 0, 0);
        }

        /** Hits over queries in the window, or null when the engine was asked for nothing (or never scraped). */
        public Double hitRate() {
            return prefixQueries > 0 ? prefixHits / prefixQueries : null;
        }

        /** Of the tokens looked up in the host tier in the window, the share loaded from it; null when none was looked up. */
        public Double hostHitRate() {
            return hostQueries > 0 ? hostHits / hostQueries : null;
        }

        public double seconds() {
            return (toMillis - fromMillis) / 1000.0;
        }
    }

    private final Map<String, Deque<Sample>> samples = new ConcurrentHashMap<>();

    /** Records each replica's counters now; called every {@link #SAMPLE_MILLIS}. */
    public void sample(long nowMillis, Iterable<ReplicaState> replicas) {
        List<String> seen = new ArrayList<>();
        for (ReplicaState r : replicas) {
            seen.add(r.id());
            ScrapedMetrics m = r.metrics();
            boolean tier = m != null && m.hostTier().present();
            record(r.id(), new Sample(nowMillis, r.requests(), m == null ? -1 : m.prefixCacheQueries(), m == null ? -1 : m.prefixCacheHits(),
                    tier ? m.hostTier().externalQueries() : -1, tier ? m.hostTier().externalHits() : -1));
        }
        samples.keySet().retainAll(seen);
    }

    /** One replica's cumulative counters now; queries and hits -1 when its engine has not been scraped yet. */
    void record(String replica, long nowMillis, long requests, double prefixQueries, double prefixHits) {
        record(replica, new Sample(nowMillis, requests, prefixQueries, prefixHits));
    }

    void record(String replica, Sample sample) {
        long nowMillis = sample.epochMillis();
        Deque<Sample> q = samples.computeIfAbsent(replica, k -> new ArrayDeque<>());
        synchronized (q) {
            q.addLast(sample);
            // Keep the one sample before the oldest window's start: it is that window's baseline.
            while (q.size() > 2 && second(q).epochMillis() <= nowMillis - KEPT_MILLIS - BUCKET_MILLIS) {
                q.removeFirst();
            }
        }
    }

    /** The last {@code windowMillis} of one replica (less while the router is younger), or an empty window. */
    public Window recent(String replica, long nowMillis, long windowMillis) {
        List<Sample> in = since(replica, nowMillis - windowMillis);
        if (in.size() < 2) {
            Long engineSince = in.isEmpty() || !in.get(0).engineKnown() ? null : in.get(0).epochMillis();
            return new Window(nowMillis, nowMillis, 0, 0, 0, engineSince);
        }
        return between(in);
    }

    /**
     * The last {@link #KEPT_MILLIS} in buckets of {@link #BUCKET_MILLIS}, oldest first, aligned to the
     * clock; a bucket the router was not running in is left out.
     */
    public List<Window> buckets(String replica, long nowMillis) {
        List<Sample> in = since(replica, nowMillis - KEPT_MILLIS - BUCKET_MILLIS);
        List<Window> out = new ArrayList<>();
        long first = (nowMillis - KEPT_MILLIS) / BUCKET_MILLIS * BUCKET_MILLIS;
        int i = 0;
        for (long start = first; start <= nowMillis; start += BUCKET_MILLIS) {
            long end = start + BUCKET_MILLIS;
            // The bucket's increase runs from the last sample before it to the last one inside it.
            List<Sample> pairs = new ArrayList<>();
            while (i < in.size() && in.get(i).epochMillis() < start) {
                i++;
            }
            if (i > 0) {
                pairs.add(in.get(i - 1));
            }
            int j = i;
            while (j < in.size() && in.get(j).epochMillis() < end) {
                pairs.add(in.get(j));
                j++;
            }
            if (pairs.size() >= 2) {
                Window w = between(pairs);
                out.add(new Window(start, end, w.requests(), w.prefixQueries(), w.prefixHits(), w.engineSinceMillis(), w.hostQueries(), w.hostHits()));
            }
        }
        return out;
    }

    private static Sample second(Deque<Sample> q) {
        Iterator<Sample> it = q.iterator();
        it.next();
        return it.next();
    }

    private List<Sample> since(String replica, long fromMillis) {
        Deque<Sample> q = samples.get(replica);
        if (q == null) {
            return List.of();
        }
        List<Sample> out = new ArrayList<>();
        synchronized (q) {
            Iterator<Sample> it = q.descendingIterator();
            while (it.hasNext()) {
                Sample s = it.next();
                out.add(0, s);
                if (s.epochMillis() <= fromMillis) {
                    // The one sample at or before the window's start is its baseline.
                    break;
                }
            }
        }
        return out;
    }

    private static Window between(List<Sample> in) {
        long requests = 0;
        double queries = 0;
        double hits = 0;
        double hostQueries = 0;
        double hostHits = 0;
        Long engineSince = in.get(0).engineKnown() ? in.get(0).epochMillis() : null;
        for (int k = 1; k < in.size(); k++) {
            Sample a = in.get(k - 1);
            Sample b = in.get(k);
            requests += increase(a.requests(), b.requests());
            if (engineSince == null && b.engineKnown()) {
                engineSince = b.epochMillis();
            }
            if (a.engineKnown() && b.engineKnown()) {
                queries += increase(a.prefixQueries(), b.prefixQueries());
                hits += increase(a.prefixHits(), b.prefixHits());
            }
            if (a.hostKnown() && b.hostKnown()) {
                hostQueries += increase(a.hostQueries(), b.hostQueries());
                hostHits += increase(a.hostHits(), b.hostHits());
            }
        }
        return new Window(in.get(0).epochMillis(), in.get(in.size() - 1).epochMillis(), requests, queries, hits, engineSince,
                hostQueries, hostHits);
    }

    private static double increase(double before, double after) {
        return after >= before ? after - before : after;
    }
}
