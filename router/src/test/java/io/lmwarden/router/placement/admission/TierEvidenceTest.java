package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Admission's evidence on a replica with a host KV tier, on scripted steps: the engine reports tokens loaded from the
 * tier as cached, so a step counts what it paid to have its own prefix back ({@link TierLoads#missShare}): what was not
 * cached at a recompute's cost, what the tier loaded at the tier's.
 */
class TierEvidenceTest {

    private static final long SECOND = 1_000_000_000L;
    /** The reference replica: a token loads from the tier (147,456 B at 25 GB/s) in ~0.006 ms, prefills in ~0.3 ms. */
    private static final double LOAD_COST = 0.02;

    /** {@code n} sessions back home after a short pause, each with {@code cachedShare} of its 10,200-token own prefix cached. */
    private static long steps(ThrashSignal t, TierLoads.Split tier, int n, double cachedShare, long from) {
        long now = from;
        for (int i = 0; i < n; i++) {
            String s = "s" + i;
            t.served(s, "r0", 10_000, 3_000, 200, false, tier, now);
            now += SECOND;
            t.served(s, "r0", 10_400, (long) (cachedShare * 10_200), 200, true, tier, now);
        }
        return now;
    }

    @Test
    void whatAStepPaidCountsLoadedTokensAtTheirLoadCostAndTheRestAsARecompute() {
        TierLoads.Split tier = new TierLoads.Split(0, 0, 0.75, LOAD_COST);
        // Everything cached, three quarters of it loaded from the tier: a twentieth of a recompute for those.
        assertThat(TierLoads.missShare(10_000, 10_000, tier)).isCloseTo(0.75 * LOAD_COST, within(1e-9));
        // Nothing cached anywhere: a full recompute.
        assertThat(TierLoads.missShare(10_000, 0, tier)).isEqualTo(1.0);
        // Six tenths cached (the tier kept the prefix's start): four tenths recomputed, plus the loads.
        assertThat(TierLoads.missShare(10_000, 6_000, tier)).isCloseTo(0.4 + 0.6 * 0.75 * LOAD_COST, within(1e-9));
        // Without a tier the cached tokens were local: only the recompute counts.
        assertThat(TierLoads.missShare(10_000, 6_000, TierLoads.Split.NO_TIER)).isCloseTo(0.4, within(1e-9));
    }

    @Test
    void aTierThatKeepsOnlyTheStartOfEachPrefixIsThrashItRecomputesTheRestEveryStep() {
        // Each return finds 60 % of its prefix cached, most of it loaded from the tier: a near hit by cached_tokens'
        // word (more than half cached), yet every step prefills 40 % of its context again.
        ThrashSignal t = new ThrashSignal(false, 30 * SECOND);
        long now = steps(t, new TierLoads.Split(0, 0, 0.8, LOAD_COST), 20, 0.6, 0);
        assertThat(t.engaged(now)).isTrue();
        assertThat((double) t.state(now).get("ownPrefixMissRate")).isGreaterThanOrEqualTo(ThrashSignal.ENGAGE_AT);
        assertThat(t.state(now).get("missedSteps")).as("none paid half a recompute").isEqualTo(0L);
    }

    @Test
    void anAmpleTierThatLoadsEveryPrefixBackIsNoThrash() {
        ThrashSignal t = new ThrashSignal(false, 30 * SECOND);
        long now = steps(t, new TierLoads.Split(0, 0, 1.0, LOAD_COST), 50, 0.99, 0);
        t.kvFullWithQueue(now);
        assertThat(t.engaged(now)).as("loads are cheap: not even with an engine full and requests waiting").isFalse();
        assertThat((double) t.state(now).get("ownPrefixMissRate")).isLessThan(ThrashSignal.RELEASE_BELOW);
    }
}
