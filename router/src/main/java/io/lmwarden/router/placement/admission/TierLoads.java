package io.lmwarden.router.placement.admission;

import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.pool.ScrapedMetrics;

import java.util.HashMap;
import java.util.Map;

/**
 * What a replica's host KV tier adds to the tokens its engine reports as cached, for admission's evidence. vLLM counts
 * a prompt's tokens loaded from the tier as cached ({@code cached_tokens} is local and loaded tokens alike), so a step
 * that found its own prefix only in the tier looks like a GPU hit, and one that found only its start there (the tier's
 * LRU keeps a prefix's first blocks longest) looks like a near hit while it recomputed the rest. The engine does not
 * say per request how its cached tokens split; its counters do per replica: {@code vllm:prefix_cache_hits} (local)
 * and {@code vllm:external_prefix_cache_hits} (loaded). Each look takes the split of the tokens cached since the last
 * one (a moving average; the totals since the engine started at the first look or after a restart), and the cost of
 * loading a token from the tier as a share of prefilling it. Not thread-safe: the controller's lock guards it.
 */
final class TierLoads {

    /** Weight of one look's split in the moving average: a few seconds of looks. */
    static final double ALPHA = 0.2;

    /** A replica's split as last seen: its counters then, the share of cached tokens loaded from the tier, the load cost. */
    record Split(double localHits, double tierHits, double loadedShare, double loadCost) {
        static final Split NO_TIER = new Split(0, 0, 0, 0);
    }

    private final Map<String, Split> byReplica = new HashMap<>();

    /**
     * The pump's look at a ready replica. {@code prefillEngineMsPerToken}: what the engine takes to prefill a token, in
     * its own time, as the host tier's load times are.
     */
    void look(ReplicaView r, double prefillEngineMsPerToken) {
        ScrapedMetrics m = r.metrics();
        if (m == null || !m.hostTier().present()) {
            byReplica.remove(r.id());
            return;
        }
        HostTierMetrics tier = m.hostTier();
        double local = m.prefixCacheHits();
        double loaded = tier.externalHits();
        Split before = byReplica.get(r.id());
        double share;
        if (before == null || local < before.localHits || loaded < before.tierHits) {
            // First look, or the engine restarted (its counters went back): the totals since it started.
            share = local + loaded > 0 ? loaded / (local + loaded) : 0;
        } else {
            double dLocal = local - before.localHits;
            double dLoaded = loaded - before.tierHits;
            share = dLocal + dLoaded > 0 ? before.loadedShare + ALPHA * (dLoaded / (dLocal + dLoaded) - before.loadedShare)
                    : before.loadedShare;
        }
        double loadCost = prefillEngineMsPerToken > 0 ? Math.min(1, tier.loadEngineMillis(1) / prefillEngineMsPerToken) : 0;
        byReplica.put(r.id(), new Split(local, loaded, share, loadCost));
    }

    /** The replica's split as of its last look ({@link Split#NO_TIER} without a tier). */
    Split of(String replica) {
        return byReplica.getOrDefault(replica, Split.NO_TIER);
    }

    void forget(String replica) {
        byReplica.remove(replica);
    }

    /**
     * What a step paid to have its own prefix back, as a share of recomputing all of it (0..1): the tokens of its own
     * prefix the engine did not report cached are a recompute (a full miss is 1), and those it did, the share the tier
     * loaded counts at the tier's load cost.
     */
    static double missShare(long ownTokens, long cachedTokens, Split split) {
        if (ownTokens <= 0) {
            return 0;
        }
        double cached = Math.min(Math.max(0, cachedTokens), ownTokens);
        double recomputed = ownTokens - cached;
        double loaded = cached * split.loadedShare();
        return Math.min(1, (recomputed + loaded * split.loadCost()) / ownTokens);
    }
}
