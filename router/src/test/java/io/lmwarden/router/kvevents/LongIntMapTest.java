package io.lmwarden.router.kvevents;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class LongIntMapTest {

    @Test
    void agreesWithAHashMapThroughRandomPutsAndRemovals() {
        Random random = new Random(7);
        LongIntMap map = new LongIntMap();
        Map<Long, Integer> reference = new HashMap<>();
        // Keys from a small range collide in their probe runs, which is what backward-shift deletion must survive.
        for (int i = 0; i < 200_000; i++) {
            long key = random.nextInt(5_000) * 4096L;
            if (random.nextInt(3) == 0) {
                Integer expected = reference.remove(key);
                assertThat(map.remove(key)).isEqualTo(expected == null ? LongIntMap.ABSENT : expected);
            } else {
                int value = random.nextInt(1_000_000);
                reference.put(key, value);
                map.put(key, value);
            }
            if (i % 10_000 == 0) {
                for (Map.Entry<Long, Integer> e : reference.entrySet()) {
                    assertThat(map.get(e.getKey())).isEqualTo(e.getValue());
                }
            }
        }
        assertThat(map.size()).isEqualTo(reference.size());
        for (long k = 0; k < 5_000; k++) {
            Integer expected = reference.get(k * 4096L);
            assertThat(map.get(k * 4096L)).isEqualTo(expected == null ? LongIntMap.ABSENT : expected);
        }
    }

    @Test
    void shrinksWhenEmptied() {
        LongIntMap map = new LongIntMap();
        for (long k = 0; k < 100_000; k++) {
            map.put(k, 1);
        }
        long full = map.bytes();
        for (long k = 0; k < 100_000; k++) {
            map.remove(k);
        }
        assertThat(map.size()).isZero();
        assertThat(map.bytes()).isLessThan(full / 100);
    }
}
