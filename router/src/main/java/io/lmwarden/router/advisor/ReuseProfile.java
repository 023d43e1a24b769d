package io.lmwarden.router.advisor;

import java.util.List;

/**
 * What one replica's recent steps would have found in an LRU cache of any size, from one pass: for every key of every
 * scored step, the largest LRU stack distance among the keys up to it (a prefix is served up to its first miss), as a
 * histogram of prompt tokens. An LRU cache of C keys serves a key whose prefix's largest stack distance is below C
 * (Mattson's stack property), so {@link #servedTokens} reads the tokens served at any capacity off the histogram.
 *
 * <p>vLLM's host tier is written through (every computed prompt block is copied) and both the GPU cache and the tier
 * evict least recently used blocks of the same prompts, so a GPU of G keys with a tier of T keys serves what one LRU
 * cache of {@code max(G, T)} keys serves: the model needs one capacity per replica, not two caches.
 */
public final class ReuseProfile {

    /** Prefix stack distances at or past this are counted together: capacities beyond it are never asked for. */
    private final int maxKeys;
    /** cumulative[c] = tokens served by a cache of c keys, for c in 0..maxKeys. */
    private final double[] cumulative;
    /** replyCumulative[c] = tokens of re-sent replies served by a GPU cache of c keys (replies are never offloaded). */
    private final double[] replyCumulative;
    /** Tokens a cache that never evicts would serve: every prompt key used before within the window (replies aside). */
    private final double reusableTokens;
    private final double promptTokens;
    private final double cachedTokens;
    private final double reportedPromptTokens;
    private final int scoredSteps;

    private ReuseProfile(int maxKeys, double[] cumulative, double[] replyCumulative, double reusableTokens, double promptTokens, double cachedTokens,
                         double reportedPromptTokens, int scoredSteps) {
        this.maxKeys = maxKeys;
        this.cumulative = cumulative;
        this.replyCumulative = replyCumulative;
        this.reusableTokens = reusableTokens;
        this.promptTokens = promptTokens;
        this.cachedTokens = cachedTokens;
        this.reportedPromptTokens = reportedPromptTokens;
        this.scoredSteps = scoredSteps;
    }

    /**
     * Replays {@code steps} (one replica's, in arrival order) through an LRU stack. Steps before {@code firstScored} only
     * warm the cache; the rest are counted. Each step looks all its keys up first, then uses them last to first, so the
     * start of a prompt is the most recent (vLLM touches a request's blocks in reverse order for the same reason: a shared
     * prefix outlives the tails that hang off it).
     *
     * @param maxKeys the largest capacity that will be asked for, in keys
     */
    public static ReuseProfile replay(List<TracedStep> steps, int firstScored, int blocksPerKey, int maxKeys) {
        int references = 0;
        for (TracedStep s : steps) {
            references += s.keys().length;
        }
        ReferenceCounts marks = new ReferenceCounts(references);
        java.util.HashMap<Long, Integer> lastUse = new java.util.HashMap<>();
        double[] histogram = new double[maxKeys + 1];
        double reusable = 0;
        double prompt = 0;
        double cached = 0;
        double reported = 0;
        int scored = 0;
        int now = 0;
        double[] replyHistogram = new double[maxKeys + 1];
        for (int i = 0; i < steps.size(); i++) {
            TracedStep s = steps.get(i);
            long[] keys = s.keys();
            boolean counted = i >= firstScored;
            if (counted) {
                scored++;
                prompt += s.promptTokens();
                if (s.cachedTokens() >= 0) {
                    cached += Math.min(s.cachedTokens(), s.promptTokens());
                    reported += s.promptTokens();
                }
                double perKey = s.tokensPerKey(blocksPerKey);
                int prefixMax = 0;
                for (int k = 0; k < keys.length; k++) {
                    Integer last = lastUse.get(keys[k]);
                    if (last == null) {
                        if (!s.inReply(k)) {
                            break;
                        }
                        // The engine generated these blocks on this replica at the end of the step this one continues:
                        // held on its GPU (never in the tier: vLLM offloads prompt blocks) as long as the prompt before them.
                        replyHistogram[Math.min(prefixMax, maxKeys)] += perKey;
                        continue;
                    }
                    // Distinct keys used since: one mark per key at its latest use, none of them this step's yet.
                    prefixMax = Math.max(prefixMax, marks.upTo(now - 1) - marks.upTo(last));
                    histogram[Math.min(prefixMax, maxKeys)] += perKey;
                    reusable += perKey;
                }
            }
            for (int k = keys.length - 1; k >= 0; k--) {
                Integer last = lastUse.put(keys[k], now);
                if (last != null) {
                    marks.add(last, -1);
                }
                marks.add(now, 1);
                now++;
            }
        }
        // A cache of c keys serves the keys whose prefix distance is at most c - 1.
        double[] cumulative = new double[maxKeys + 1];
        double[] replyCumulative = new double[maxKeys + 1];
        for (int c = 1; c <= maxKeys; c++) {
            cumulative[c] = cumulative[c - 1] + histogram[c - 1];
            replyCumulative[c] = replyCumulative[c - 1] + replyHistogram[c - 1];
        }
        return new ReuseProfile(maxKeys, cumulative, replyCumulative, reusable, prompt, cached, reported, scored);
    }

    /** Prompt tokens an LRU cache of {@code capacityKeys} keys would have served, replies counted as held there too. */
    public double servedTokens(long capacityKeys) {
        return servedTokens(capacityKeys, capacityKeys);
    }

    /**
     * Prompt tokens served by a GPU cache of {@code gpuKeys} keys and a write-through tier that makes prompts last as long
     * as in a cache of {@code capacityKeys} ({@code max(gpu, tier)}): re-sent replies only from the GPU.
     */
    public double servedTokens(long capacityKeys, long gpuKeys) {
        return cumulative[clamp(capacityKeys)] + replyCumulative[clamp(Math.min(gpuKeys, capacityKeys))];
    }

    private int clamp(long keys) {
        return (int) Math.max(0, Math.min(maxKeys, keys));
    }

    /** Prompt tokens (re-sent replies aside) a cache that never evicts would have served. */
    public double reusableTokens() {
        return reusableTokens;
    }

    /** The best any tier can do beside a GPU cache of {@code gpuKeys} keys: every prompt reused, replies as the GPU keeps them. */
    public double ceilingTokens(long gpuKeys) {
        return reusableTokens + replyCumulative[clamp(gpuKeys)];
    }

    /** Prompt tokens of the scored steps. */
    public double promptTokens() {
        return promptTokens;
    }

    /** Prompt tokens the engine said it served from cache, over the scored steps that reported it. */
    public double cachedTokens() {
        return cachedTokens;
    }

    /** Prompt tokens of the scored steps whose engine reported cached tokens. */
    public double reportedPromptTokens() {
        return reportedPromptTokens;
    }

    public int scoredSteps() {
        return scoredSteps;
    }

    public int maxKeys() {
        return maxKeys;
    }
}
