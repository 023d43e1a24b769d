package io.lmwarden.router.placement.admission;

import io.lmwarden.router.pool.HostTierMetrics;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.pool.ScrapedMetrics;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** What admission's budget counts of each tier, and the cost of bringing a session back from the host tier. */
class ReplicaKvCapacityTest {

    private static ReplicaView replica(double tierGib) {
        return ReplicaView.builder("r").metrics(ScrapedMetrics.builder().kvBlocks(2400, 16)
                .hostTier(new HostTierMetrics(tierGib, 0, 0, 0, 0)).build()).build();
    }

    @Test
    void withoutATierTheBudgetIsTheGpuCacheAsBefore() {
        ReplicaKvCapacity c = ReplicaKvCapacity.of(replica(0), 1000);
        assertThat(c.hostTierTokens()).isZero();
        assertThat(c.residentTokens()).isEqualTo(38_400);
        // No engine figures yet: the default capacity, no tier.
        assertThat(ReplicaKvCapacity.of(ReplicaView.builder("new").build(), 1000).residentTokens()).isEqualTo(1000);
    }

    @Test
    void aTierCountsUpToTwiceTheGpuCacheAndAHostCopyReturnsForItsLoadTime() {
        // 5× the reference replica's 38,400 tokens of 147,456 B: 26.37 GiB.
        ReplicaKvCapacity five = ReplicaKvCapacity.of(replica(26.37), 1000);
        assertThat(five.hostTierTokens()).isBetween(192_000L, 192_040L);
        assertThat(five.residentTokens()).isEqualTo(2 * 38_400);
        // A tier smaller than the GPU cache adds nothing: it holds a copy of what the GPU holds.
        assertThat(ReplicaKvCapacity.of(replica(2), 1000).residentTokens()).isEqualTo(38_400);
        // Between one and two GPU caches: the tier.
        ReplicaKvCapacity half = ReplicaKvCapacity.of(replica(8), 1000);
        assertThat(half.residentTokens()).isEqualTo(half.hostTierTokens()).isBetween(38_401L, 76_800L);
        // 12k tokens over PCIe 4.0 (the prior, 25 GB/s): ~71 ms of engine time instead of a ~3.6 s prefill.
        assertThat(five.returnCostEngineMillis(12_000)).isCloseTo(70.8, within(0.1));
    }
}
