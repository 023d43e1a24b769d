package io.lmwarden.router.cacheview;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.kvevents.KvEventEndpoint;
import io.lmwarden.router.kvevents.ReplicaCacheView;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.DiscoveredReplica;
import io.lmwarden.router.pool.ReplicaAddress;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Keeps the engines' cache views in step with the pool: one subscription per replica (per engine rank: rank r of an
 * endpoint publishes on its ports + r) whose endpoint discovery names a publisher for, none for the others. Ranks
 * learned later from an endpoint's metrics are picked up on the next {@link #sync}. It also carries the views' word
 * that an engine's cache went empty (a reset, a restart) to the router's own prefix index, which would otherwise
 * believe the replica warm until its LRU aged the blocks out.
 */
public final class KvEventFollower {

    private static final Logger LOG = Logger.getLogger(KvEventFollower.class.getName());
    /** How often the subscriptions are matched to the pool and cold caches are looked for: a cleared cache is known within it. */
    public static final long SYNC_MILLIS = 250;

    private final EngineCacheViews views;
    private final ReplicaPool pool;
    private final PrefixIndexes prefixIndexes;
    private final String topic;
    private volatile Map<String, DiscoveredReplica> publishers = Map.of(); // by endpoint id
    private final Map<String, Long> coldSeen = new HashMap<>();
    private CacheViewMeters meters;

    /** Meters for each view followed from now on. */
    public void meter(CacheViewMeters m) {
        this.meters = m;
    }

    public KvEventFollower(EngineCacheViews views, ReplicaPool pool, PrefixIndexes prefixIndexes, String topic) {
        this.views = views;
        this.pool = pool;
        this.prefixIndexes = prefixIndexes;
        this.topic = topic;
    }

    /** Discovery's whole current set: which endpoints publish, and where. */
    public void discovered(List<DiscoveredReplica> endpoints) {
        Map<String, DiscoveredReplica> next = new HashMap<>();
        endpoints.stream().filter(DiscoveredReplica::publishesKvEvents).forEach(d -> next.put(d.id(), d));
        publishers = next;
        sync();
    }

    public synchronized void sync() {
        if (!views.enabled()) {
            return;
        }
        views.follow(wanted());
        for (ReplicaCacheView v : views.all()) {
            if (meters != null) {
                meters.viewFollowed(v.id());
            }
            long colds = v.coldEvents();
            Long seen = coldSeen.put(v.id(), colds);
            if (seen != null && colds > seen) {
                // The engine holds nothing now: what the text index believes it holds is gone too.
                prefixIndexes.forget(v.id());
                LogFields.info(LOG, "replica cache cleared (KV events)", "replica", v.id(), "atMillis", v.lastColdAtMillis());
            }
        }
        coldSeen.keySet().retainAll(views.all().stream().map(ReplicaCacheView::id).toList());
    }

    private List<KvEventEndpoint> wanted() {
        Map<String, DiscoveredReplica> byEndpoint = publishers;
        List<KvEventEndpoint> wanted = new ArrayList<>();
        for (ReplicaState r : pool.all()) {
            DiscoveredReplica d = byEndpoint.get(r.endpointId());
            ReplicaAddress address = d == null ? null : ReplicaAddress.parse(d.url());
            if (address == null) {
                continue;
            }
            int rank = r.dataParallelRank().orElse(0);
            wanted.add(new KvEventEndpoint(r.id(), address.host(), d.kvEventsPort() + rank,
                    d.kvReplayPort() > 0 ? d.kvReplayPort() + rank : 0, topic));
        }
        return wanted;
    }
}
