package io.lmwarden.router.placement.pins;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class AffinityTableTest {

    private static final long SEC = 1_000_000_000L;

    @Test
    void pinsLooksUpAndRepinsWithPerReplicaCounts() {
        AffinityTable t = new AffinityTable(100, Duration.ofHours(2));
        t.pin("m", "s1", "r0", 0);
        t.pin("m", "s2", "r0", 0);
        t.pin("other-model", "s1", "r1", 0);
        assertThat(t.lookup("m", "s1", SEC)).contains("r0");
        assertThat(t.lookup("other-model", "s1", SEC)).contains("r1");
        assertThat(t.sessionsOn("r0")).isEqualTo(2);
        t.pin("m", "s1", "r2", 2 * SEC);
        assertThat(t.lookup("m", "s1", 3 * SEC)).contains("r2");
        assertThat(t.sessionsOn("r0")).isEqualTo(1);
        assertThat(t.sessionsOn("r2")).isEqualTo(1);
        assertThat(t.size()).isEqualTo(3);
    }

    @Test
    void boundedByLeastRecentlyUsed() {
        AffinityTable t = new AffinityTable(3, Duration.ofHours(2));
        t.pin("m", "a", "r0", 0);
        t.pin("m", "b", "r0", 1);
        t.pin("m", "c", "r1", 2);
        t.lookup("m", "a", 3);
        t.pin("m", "d", "r1", 4);
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.peek("m", "b")).isEmpty();
        assertThat(t.peek("m", "a")).contains("r0");
        assertThat(t.sessionsOn("r0")).isEqualTo(1);
        assertThat(t.sessionsOn("r1")).isEqualTo(2);
    }

    @Test
    void idleEntriesExpireOnLookupAndOnSweep() {
        AffinityTable t = new AffinityTable(100, Duration.ofSeconds(10));
        t.pin("m", "old", "r0", 0);
        t.pin("m", "young", "r0", 8 * SEC);
        assertThat(t.lookup("m", "old", 11 * SEC)).isEmpty();
        t.pin("m", "mid", "r1", 9 * SEC);
        assertThat(t.expireIdle(19 * SEC)).isEqualTo(1);
        assertThat(t.peek("m", "young")).isEmpty();
        assertThat(t.peek("m", "mid")).contains("r1");
        assertThat(t.sessionsPerReplica()).containsOnlyKeys("r1");
    }
}
