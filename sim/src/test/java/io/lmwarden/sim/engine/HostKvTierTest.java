package io.lmwarden.sim.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HostKvTierTest {
    private static final long A = 1;
    private static final long B = 2;
    private static final long C = 3;
    private static final long D = 4;

    @Test
    void evictsTheLeastRecentlyUsedBlock() {
        HostKvTier tier = new HostKvTier(3);
        List<Long> evicted = new ArrayList<>();
        tier.store(A, evicted);
        tier.store(B, evicted);
        tier.store(C, evicted);
        tier.touch(new long[] {A}, 1);

        assertThat(tier.store(D, evicted)).isTrue();

        assertThat(evicted).containsExactly(B);
        assertThat(tier.contains(A)).isTrue();
        assertThat(tier.contains(B)).isFalse();
        assertThat(tier.size()).isEqualTo(3);
    }

    @Test
    void touchKeepsAPrefixLongerThanItsTail() {
        HostKvTier tier = new HostKvTier(3);
        List<Long> evicted = new ArrayList<>();
        long[] chain = {A, B, C};
        for (long h : chain) {
            tier.store(h, evicted);
        }
        // Touched in reverse: the first block of the chain is the most recent, its last block the least.
        tier.touch(chain, 3);
        tier.store(D, evicted);

        assertThat(evicted).containsExactly(C);
        assertThat(tier.matchLength(chain, 0, 3)).isEqualTo(2);
    }

    @Test
    void aBlockBeingLoadedIsNotEvicted() {
        HostKvTier tier = new HostKvTier(2);
        List<Long> evicted = new ArrayList<>();
        tier.store(A, evicted);
        tier.store(B, evicted);
        tier.pin(new long[] {A, B}, 0, 1);

        assertThat(tier.store(C, evicted)).isTrue();
        assertThat(evicted).containsExactly(B);
        assertThat(tier.pinned()).isEqualTo(1);

        tier.pin(new long[] {C}, 0, 1);
        assertThat(tier.store(D, evicted)).as("everything pinned: the store is skipped").isFalse();
        assertThat(tier.contains(D)).isFalse();

        tier.unpin(new long[] {A}, 0, 1);
        assertThat(tier.store(D, evicted)).isTrue();
        assertThat(evicted).containsExactly(B, A);
    }

    @Test
    void matchLengthStopsAtTheFirstMiss() {
        HostKvTier tier = new HostKvTier(8);
        List<Long> evicted = new ArrayList<>();
        tier.store(A, evicted);
        tier.store(B, evicted);
        tier.store(D, evicted);
        assertThat(tier.matchLength(new long[] {A, B, C, D}, 0, 4)).isEqualTo(2);
        assertThat(tier.matchLength(new long[] {A, B, C, D}, 1, 4)).isEqualTo(1);
        assertThat(tier.matchLength(new long[] {A, B, C, D}, 3, 4)).isEqualTo(1);
    }
}
