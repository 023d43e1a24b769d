package io.lmwarden.router.stats;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The recent window and the chart's buckets from once-a-second samples of cumulative counters. */
class ReplicaHistoryTest {

    private static final long T0 = 1_800_000_000_000L;

    @Test
    void theWindowCountsOnlyItsOwnIncreaseNotTheEnginesPast() {
        ReplicaHistory h = new ReplicaHistory();
        // 10 minutes at 1 s: 0.5 hits per query for the first 7 minutes, then 0.9 for the last 3.
        double queries = 1_000_000;
        double hits = 100_000;
        for (int s = 0; s <= 600; s++) {
            if (s > 0) {
                queries += 100;
                hits += s <= 420 ? 50 : 90;
            }
            h.record("r", T0 + s * 1000L, s, queries, hits);
        }
        long now = T0 + 600_000;
        ReplicaHistory.Window last3 = h.recent("r", now, 180_000);
        assertThat(last3.hitRate()).isCloseTo(0.9, within(1e-9));
        assertThat(last3.requests()).isEqualTo(180);
        assertThat(last3.seconds()).isEqualTo(180);
        ReplicaHistory.Window last5 = h.recent("r", now, 300_000);
        assertThat(last5.prefixQueries()).isEqualTo(300 * 100);
        assertThat(last5.hitRate()).isCloseTo((120 * 50 + 180 * 90) / 30_000.0, within(1e-9));
        assertThat(last5.engineSinceMillis()).isEqualTo(now - 300_000);
    }

    @Test
    void anEngineRestartCountsFromZeroInsteadOfGoingNegative() {
        ReplicaHistory h = new ReplicaHistory();
        h.record("r", T0, 0, 5000, 4000);
        h.record("r", T0 + 1000, 1, 5100, 4050);
        h.record("r", T0 + 2000, 2, 40, 10);
        h.record("r", T0 + 3000, 3, 140, 100);
        ReplicaHistory.Window w = h.recent("r", T0 + 3000, 60_000);
        assertThat(w.prefixQueries()).isEqualTo(100 + 40 + 100);
        assertThat(w.prefixHits()).isEqualTo(50 + 10 + 90);
    }

    @Test
    void theHostTiersHitsAreWindowedLikeTheGpusAndAbsentWithoutATier() {
        ReplicaHistory h = new ReplicaHistory();
        // A tier that served half its lookups long ago, then 80 % over the last minute.
        h.record("r", new ReplicaHistory.Sample(T0, 0, 10_000, 5_000, 4_000, 2_000));
        h.record("r", new ReplicaHistory.Sample(T0 + 100_000, 10, 20_000, 9_000, 8_000, 4_000));
        h.record("r", new ReplicaHistory.Sample(T0 + 130_000, 20, 21_000, 9_500, 9_000, 4_800));
        h.record("r", new ReplicaHistory.Sample(T0 + 160_000, 30, 22_000, 10_000, 10_000, 5_600));
        ReplicaHistory.Window w = h.recent("r", T0 + 160_000, 60_000);
        assertThat(w.hostQueries()).isEqualTo(2_000);
        assertThat(w.hostHitRate()).isCloseTo(0.8, within(1e-9));
        assertThat(w.hitRate()).isCloseTo(0.5, within(1e-9));

        h.record("gpu-only", T0, 0, 100, 50);
        h.record("gpu-only", T0 + 1000, 1, 200, 100);
        assertThat(h.recent("gpu-only", T0 + 1000, 60_000).hostHitRate()).isNull();
    }

    @Test
    void samplesBeforeTheFirstScrapeCountRequestsButNotTheEngine() {
        ReplicaHistory h = new ReplicaHistory();
        h.record("r", T0, 0, -1, -1);
        h.record("r", T0 + 1000, 4, 300, 100);
        h.record("r", T0 + 2000, 6, 500, 250);
        ReplicaHistory.Window w = h.recent("r", T0 + 2000, 60_000);
        assertThat(w.requests()).isEqualTo(6);
        assertThat(w.prefixQueries()).isEqualTo(200);
        assertThat(w.hitRate()).isCloseTo(0.75, within(1e-9));
        assertThat(w.engineSinceMillis()).isEqualTo(T0 + 1000);
        assertThat(new ReplicaHistory().recent("none", T0, 60_000).hitRate()).isNull();
    }

    @Test
    void bucketsOfTenSecondsAddUpToTheWindowAndOldSamplesGo() {
        ReplicaHistory h = new ReplicaHistory();
        for (int s = 0; s <= 900; s++) {
            h.record("r", T0 + s * 1000L, 2L * s, 10.0 * s, 4.0 * s);
        }
        long now = T0 + 900_000;
        List<ReplicaHistory.Window> buckets = h.buckets("r", now);
        assertThat(buckets).hasSizeBetween(30, 31);
        assertThat(buckets).allSatisfy(b -> assertThat(b.toMillis() - b.fromMillis()).isEqualTo(ReplicaHistory.BUCKET_MILLIS));
        assertThat(buckets.subList(0, buckets.size() - 1)).allSatisfy(b -> {
            assertThat(b.requests()).isEqualTo(20);
            assertThat(b.hitRate()).isCloseTo(0.4, within(1e-9));
        });
        // Each bucket runs from the last sample before it, so the buckets chain without a gap or an overlap.
        long inBuckets = buckets.stream().mapToLong(ReplicaHistory.Window::requests).sum();
        assertThat(inBuckets).isEqualTo(h.recent("r", now, now - buckets.get(0).fromMillis() + 1000).requests());
        // Ten minutes ago is gone: the longest window reaches back five minutes only.
        assertThat(h.recent("r", now, 600_000).seconds()).isLessThanOrEqualTo(ReplicaHistory.KEPT_MILLIS / 1000.0 + 20);
    }
}
