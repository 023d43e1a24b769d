package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EnginePriorityTest {

    private static final long HALF_LIFE = 60_000_000_000L;

    @Test
    void lessServedSessionsGoFirstInDoublingsOfFourThousandTokens() {
        assertThat(EnginePriority.of(0, 0, HALF_LIFE)).isZero();
        assertThat(EnginePriority.of(4095, 0, HALF_LIFE)).isZero();
        assertThat(EnginePriority.of(4096, 0, HALF_LIFE)).isEqualTo(1);
        assertThat(EnginePriority.of(3 * 4096, 0, HALF_LIFE)).isEqualTo(2);
        assertThat(EnginePriority.of(127 * 4096, 0, HALF_LIFE)).isEqualTo(7);
    }

    @Test
    void eachHalfLifeWaitedCountsAsTheServiceHalving() {
        int fresh = EnginePriority.of(127 * 4096, 0, HALF_LIFE);
        assertThat(EnginePriority.of(127 * 4096, HALF_LIFE - 1, HALF_LIFE)).isEqualTo(fresh);
        assertThat(EnginePriority.of(127 * 4096, HALF_LIFE, HALF_LIFE)).isEqualTo(fresh - 1);
        // A session with 16x the service that waited four half-lives goes ahead of a light one that did not wait.
        assertThat(EnginePriority.of(15 * 4096, 4 * HALF_LIFE, HALF_LIFE)).isLessThan(EnginePriority.of(4096, 0, HALF_LIFE));
    }

    @Test
    void boundedWhateverTheInput() {
        assertThat(EnginePriority.of(Double.MAX_VALUE, 0, HALF_LIFE)).isLessThanOrEqualTo(1000);
        assertThat(EnginePriority.of(0, Long.MAX_VALUE, 1)).isEqualTo(-1000);
        assertThat(EnginePriority.of(-5, -5, 0)).isZero();
    }
}
