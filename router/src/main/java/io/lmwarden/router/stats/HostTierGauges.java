package io.lmwarden.router.stats;

import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.pool.ScrapedMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;

/**
 * Per-replica gauges of the engines' host-memory KV tiers, from the last scrape: size in tokens, learned load
 * bandwidth and hit ratio. A replica whose engine has no tier has no series, so a pool without tiers exposes nothing new.
 */
final class HostTierGauges {

    private final MultiGauge capacity;
    private final MultiGauge bandwidth;
    private final MultiGauge hitRatio;

    HostTierGauges(MeterRegistry registry) {
        capacity = MultiGauge.builder("lmw_host_tier_capacity_tokens")
                .description("Tokens each replica's host-memory KV tier holds (kv_offloading_size over the KV bytes per token)").register(registry);
        bandwidth = MultiGauge.builder("lmw_host_tier_load_bytes_per_second")
                .description("Host-to-GPU load bandwidth of each replica's KV tier, learned from its offload counters (engine time; 25 GB/s until learned)")
                .register(registry);
        hitRatio = MultiGauge.builder("lmw_host_tier_hit_ratio")
                .description("Share of the tokens each replica looked up in its host KV tier that it found there, since the engine started")
                .register(registry);
    }

    void refresh(Iterable<ReplicaState> replicas) {
        List<MultiGauge.Row<?>> tokens = new ArrayList<>();
        List<MultiGauge.Row<?>> bytesPerSecond = new ArrayList<>();
        List<MultiGauge.Row<?>> hits = new ArrayList<>();
        for (ReplicaState r : replicas) {
            ScrapedMetrics m = r.metrics();
            HostTierMetrics tier = m == null ? HostTierMetrics.NONE : m.hostTier();
            if (!tier.present()) {
                continue;
            }
            Tags replica = Tags.of("replica", r.id());
            tokens.add(MultiGauge.Row.of(replica, tier.capacityTokens()));
            bytesPerSecond.add(MultiGauge.Row.of(replica, tier.loadBytesPerSecond()));
            hits.add(MultiGauge.Row.of(replica, tier.hitRate()));
        }
        capacity.register(tokens, true);
        bandwidth.register(bytesPerSecond, true);
        hitRatio.register(hits, true);
    }
}
