package io.lmwarden.router.api;

import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ScrapedMetrics;

import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code hostTier} field of a replica's row in {@code /api/replicas}: its engine's host-memory KV tier, or null without one. */
final class HostTierRow {

    private HostTierRow() {
    }

    static Map<String, Object> of(ScrapedMetrics e) {
        if (e == null || !e.hostTier().present()) {
            return null;
        }
        HostTierMetrics t = e.hostTier();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("sizeGib", t.sizeGib());
        row.put("capacityTokens", t.capacityTokens());
        row.put("hitRate", JsonReplies.round(t.hitRate()));
        row.put("queriedTokens", t.externalQueries());
        row.put("hitTokens", t.externalHits());
        row.put("loadedBytes", t.loadBytes());
        // Engine time: what the engine's own counters say, whatever the router's timeScale.
        row.put("loadBytesPerSecond", Math.round(t.loadBytesPerSecond()));
        row.put("bytesPerToken", Math.round(t.bytesPerToken()));
        row.put("learned", t.learned());
        return row;
    }
}
