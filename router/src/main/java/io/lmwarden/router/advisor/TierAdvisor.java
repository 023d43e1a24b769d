package io.lmwarden.router.advisor;

import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.pool.ScrapedMetrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Prices a host-memory KV tier from the pool's own recent traffic: replays the window's steps, each on the replica it ran
 * on, through one LRU stack per replica ({@link ReuseProfile}), and reads off the share of prompt tokens a GPU cache plus
 * a tier of each candidate size would have served. Runs on a timer off the event loop ({@link #refresh}); readers get the
 * last result. Its cost is one pass over the window's keys (at most {@link StepTrace#KEYS_KEPT}), O(log n) each.
 */
public final class TierAdvisor {

    /** The first quarter of the window only fills the model's caches: its steps' earlier prefixes are out of sight. */
    static final double WARMUP_SHARE = 0.25;
    /** Sizes are searched up to this multiple of the GPU KV cache (or the current tier, if larger). */
    static final double MAX_MULTIPLE = 10;
    /** A size within this of the best share is as good as the best. */
    static final double WITHIN = 0.01;
    static final double[] CANDIDATES = {0, 1, 2, 5};
    private static final double GIB = 1024.0 * 1024 * 1024;

    private final StepTrace trace;
    private final Supplier<Collection<ReplicaState>> replicas;
    private final long defaultGpuTokens;
    private final double timeScale;
    /** How often the window is replayed, in workload time (divided by the time scale; at least a second of wall time). */
    static final long PERIOD_ENGINE_MS = 60_000;

    private volatile TierAdvice latest = TierAdvice.none("no steps replayed yet");
    private volatile long lastCostNanos;
    private final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean();

    public TierAdvisor(StepTrace trace, Supplier<Collection<ReplicaState>> replicas, long defaultGpuTokens, double timeScale) {
        this.trace = trace;
        this.replicas = replicas;
        this.defaultGpuTokens = defaultGpuTokens;
        this.timeScale = timeScale;
    }

    public TierAdvice latest() {
        return latest;
    }

    /** The wall time the last refresh took. */
    public long lastCostNanos() {
        return lastCostNanos;
    }

    /** The replay period on the wall clock: as often in workload time at every time scale, at most once a second. */
    public static long periodMillis(double timeScale) {
        return Math.max(1_000, Math.round(PERIOD_ENGINE_MS / timeScale));
    }

    /**
     * Replays the window now, keeps the result and returns it; an empty result when a replay is already running (a timer
     * that fires while the last one still runs skips its turn). Blocking: call it from a worker, never the event loop.
     */
    public java.util.Optional<TierAdvice> refresh() {
        if (!running.compareAndSet(false, true)) {
            return java.util.Optional.empty();
        }
        try {
            long started = System.nanoTime();
            TierAdvice advice = advise(trace.recent(System.currentTimeMillis()), capacities(replicas.get()));
            lastCostNanos = System.nanoTime() - started;
            latest = advice.withReplayMillis(lastCostNanos / 1e6);
            return java.util.Optional.of(latest);
        } finally {
            running.set(false);
        }
    }

    /** What one replica can cache: its GPU KV cache and its current host tier, in tokens. */
    record Capacity(long gpuTokens, long tierTokens, HostTierMetrics tier) {
    }

    private Map<String, Capacity> capacities(Collection<ReplicaState> all) {
        Map<String, Capacity> out = new LinkedHashMap<>();
        for (ReplicaState r : all) {
            ScrapedMetrics m = r.metrics();
            long gpu = m != null && m.kvCapacityTokens() > 0 ? m.kvCapacityTokens() : defaultGpuTokens;
            HostTierMetrics tier = m == null ? HostTierMetrics.NONE : m.hostTier();
            out.put(r.id(), new Capacity(gpu, tier.capacityTokens(), tier));
        }
        return out;
    }

    TierAdvice advise(List<TracedStep> steps, Map<String, Capacity> capacities) {
        int g = trace.blocksPerKey();
        Map<String, List<TracedStep>> byReplica = new LinkedHashMap<>();
        double tokens = 0;
        double blocks = 0;
        for (TracedStep s : steps) {
            if (capacities.containsKey(s.replica()) && s.routerBlocks() > 0) {
                byReplica.computeIfAbsent(s.replica(), k -> new ArrayList<>()).add(s);
                tokens += s.promptTokens();
                blocks += s.routerBlocks();
            }
        }
        if (byReplica.isEmpty() || tokens <= 0) {
            return TierAdvice.none("no steps with a prompt yet: the advisor replays the last "
                    + Math.round(trace.windowMillis() * timeScale / 60_000.0) + " minutes of steps");
        }
        double tokensPerKey = tokens * g / blocks;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (List<TracedStep> l : byReplica.values()) {
            first = Math.min(first, l.get(0).atMillis());
            last = Math.max(last, l.get(l.size() - 1).atMillis());
        }
        long cutoff = first + (long) ((last - first) * WARMUP_SHARE);
        List<Replayed> replayed = new ArrayList<>();
        for (Map.Entry<String, List<TracedStep>> e : byReplica.entrySet()) {
            Capacity c = capacities.get(e.getKey());
            double largest = Math.max(MAX_MULTIPLE * c.gpuTokens(), c.tierTokens());
            int maxKeys = (int) Math.min(Integer.MAX_VALUE - 1, Math.ceil(largest / tokensPerKey) + 1);
            List<TracedStep> l = e.getValue();
            int firstScored = 0;
            while (firstScored < l.size() && l.get(firstScored).atMillis() < cutoff) {
                firstScored++;
            }
            replayed.add(new Replayed(c, ReuseProfile.replay(l, firstScored, g, maxKeys)));
        }
        return advice(new Pool(replayed, tokensPerKey), (last - cutoff) * timeScale / 1000.0, capacities.values());
    }

    private record Replayed(Capacity capacity, ReuseProfile profile) {
    }

    /** The replayed replicas: the pool's share at any GPU fraction and tier size. */
    private record Pool(List<Replayed> replicas, double tokensPerKey) {

        double prompt() {
            return replicas.stream().mapToDouble(r -> r.profile().promptTokens()).sum();
        }

        /** Share served with each replica's GPU at {@code gpuShare} of its size and a tier of {@code multiple} × its GPU. */
        double share(double gpuShare, double multiple) {
            return served(gpuShare, r -> (long) (multiple * r.gpuTokens()));
        }

        /** The best share any tier could give beside each replica's GPU at {@code gpuShare} of its size. */
        double ceiling(double gpuShare) {
            double served = 0;
            for (Replayed r : replicas) {
                served += r.profile().ceilingTokens((long) Math.floor(gpuShare * r.capacity().gpuTokens() / tokensPerKey));
            }
            double prompt = prompt();
            return prompt <= 0 ? 0 : served / prompt;
        }

        /** Share served with each replica's current tier. */
        double currentShare(double gpuShare) {
            return served(gpuShare, Capacity::tierTokens);
        }

        private double served(double gpuShare, java.util.function.ToLongFunction<Capacity> tier) {
            double served = 0;
            for (Replayed r : replicas) {
                double gpu = gpuShare * r.capacity().gpuTokens();
                double tokens = Math.max(gpu, tier.applyAsLong(r.capacity()));
                served += r.profile().servedTokens((long) Math.floor(tokens / tokensPerKey), (long) Math.floor(gpu / tokensPerKey));
            }
            double prompt = prompt();
            return prompt <= 0 ? 0 : served / prompt;
        }
    }

    private TierAdvice advice(Pool pool, double windowSeconds, Collection<Capacity> capacities) {
        double prompt = pool.prompt();
        int steps = pool.replicas().stream().mapToInt(r -> r.profile().scoredSteps()).sum();
        if (prompt <= 0) {
            return TierAdvice.none("too few steps yet to replay");
        }
        double cached = pool.replicas().stream().mapToDouble(r -> r.profile().cachedTokens()).sum();
        double reported = pool.replicas().stream().mapToDouble(r -> r.profile().reportedPromptTokens()).sum();
        Double measured = reported > 0 ? cached / reported : null;
        boolean tierNow = capacities.stream().anyMatch(c -> c.tierTokens() > 0);
        double gpuShare = 1;
        boolean calibrated = false;
        if (measured != null && !tierNow) {
            gpuShare = fitGpuShare(pool, measured);
            calibrated = true;
        }
        double ceiling = pool.ceiling(gpuShare);
        double gpuTokens = capacities.stream().mapToLong(Capacity::gpuTokens).average().orElse(0);
        Long bytesPerToken = learnedBytesPerToken(capacities);

        List<TierAdvice.Size> sizes = new ArrayList<>();
        for (double m : CANDIDATES) {
            sizes.add(size(String.format(Locale.ROOT, "%.0fx", m), m, gpuTokens, bytesPerToken, pool.share(gpuShare, m)));
        }
        if (tierNow) {
            double tierTokens = capacities.stream().mapToLong(Capacity::tierTokens).average().orElse(0);
            double gib = capacities.stream().mapToDouble(c -> c.tier().sizeGib()).average().orElse(0);
            sizes.add(new TierAdvice.Size("current", tierTokens / gpuTokens, Math.round(tierTokens), gib, pool.currentShare(gpuShare)));
        }
        double largest = Math.max(MAX_MULTIPLE, capacities.stream().mapToDouble(c -> (double) c.tierTokens() / c.gpuTokens()).max().orElse(0));
        TierAdvice.Size recommended = null;
        for (double m = 0; m <= largest + 1e-9 && recommended == null; m += 0.5) {
            double share = pool.share(gpuShare, m);
            if (share >= ceiling - WITHIN) {
                recommended = size("recommended", m, gpuTokens, bytesPerToken, share);
            }
        }
        if (recommended == null) {
            recommended = size("recommended", largest, gpuTokens, bytesPerToken, pool.share(gpuShare, largest));
        }
        return new TierAdvice(steps, windowSeconds, measured, ceiling, gpuShare, calibrated, bytesPerToken, List.copyOf(sizes),
                recommended, message(recommended, measured, ceiling, bytesPerToken, steps, windowSeconds), 0);
    }

    /**
     * The GPU share at which the model without a tier serves what the engines measured: the model's LRU cache holds only
     * finished prompts, the engine's GPU also the running requests' blocks. Bisection: the share served grows with it.
     */
    static double fitGpuShare(Pool pool, double measured) {
        if (pool.share(1, 0) <= measured) {
            return 1;
        }
        double lo = 0;
        double hi = 1;
        for (int i = 0; i < 30; i++) {
            double mid = (lo + hi) / 2;
            if (pool.share(mid, 0) < measured) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    private static Long learnedBytesPerToken(Collection<Capacity> capacities) {
        double sum = 0;
        int n = 0;
        for (Capacity c : capacities) {
            if (c.tier().present() && c.tier().learned()) {
                sum += c.tier().bytesPerToken();
                n++;
            }
        }
        return n == 0 ? null : Math.round(sum / n);
    }

    private static TierAdvice.Size size(String label, double multiple, double gpuTokens, Long bytesPerToken, double share) {
        long tokens = Math.round(multiple * gpuTokens);
        Double gib = bytesPerToken == null ? null : Math.round(tokens * (double) bytesPerToken / GIB * 10) / 10.0;
        return new TierAdvice.Size(label, multiple, tokens, gib, share);
    }

    static String message(TierAdvice.Size r, Double measured, double ceiling, Long bytesPerToken, int steps, double windowSeconds) {
        String now = measured == null ? "" : String.format(Locale.ROOT, " instead of %.0f %%", 100 * measured);
        String over = String.format(Locale.ROOT, " (a replay of the last %d steps, %.0f min)", steps, windowSeconds / 60);
        if (r.multipleOfGpuKv() == 0) {
            return String.format(Locale.ROOT, "no host tier needed: the GPU KV cache already serves ~%.0f %% of prompt tokens from cache, "
                    + "within a point of the %.0f %% that any tier could", 100 * r.predictedShare(), 100 * ceiling) + over;
        }
        String size = bytesPerToken == null
                ? String.format(Locale.ROOT, "a host tier of %s× the GPU KV cache per replica (%,d tokens; its GiB are unknown "
                        + "until an engine with a tier reports its KV bytes per token)", trim(r.multipleOfGpuKv()), r.tokensPerReplica())
                : String.format(Locale.ROOT, "a %s GiB tier per replica (%s× its GPU KV cache)",
                        r.gibPerReplica() >= 10 ? String.valueOf(Math.round(r.gibPerReplica())) : trim(r.gibPerReplica()), trim(r.multipleOfGpuKv()));
        return size + String.format(Locale.ROOT, " would serve ~%.0f %% of prompt tokens from cache", 100 * r.predictedShare()) + now + over;
    }

    private static String trim(double m) {
        return m == Math.rint(m) ? String.valueOf((long) m) : String.valueOf(m);
    }
}
