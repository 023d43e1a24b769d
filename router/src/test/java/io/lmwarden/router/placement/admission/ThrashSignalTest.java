package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When admission engages: evidence of thrashing only, and it lets go after a calm period without misses. */
class ThrashSignalTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long BREAK_EVEN = 10 * SECOND;

    /**
     * {@code n} steps of sessions coming back home after {@code pause} (one admission would have held them through when
     * shorter than the break-even); each caches {@code cachedShare} of its own prefix.
     */
    private static long steps(ThrashSignal t, int n, long pause, double cachedShare, long from) {
        long now = from;
        for (int i = 0; i < n; i++) {
            String s = "s" + i;
            t.served(s, "r0", 10_000, 3_000, 200, false, now);
            now += pause;
            t.served(s, "r0", 10_400, (long) (cachedShare * 10_200), 200, pause < BREAK_EVEN, now);
        }
        return now;
    }

    @Test
    void sessionsFindingTheirOwnPrefixDoNotEngageIt() {
        ThrashSignal t = new ThrashSignal(false, 30 * SECOND);
        long now = steps(t, 50, SECOND, 0.98, 0);
        assertThat(t.engaged(now)).isFalse();
    }

    @Test
    void missesAfterLongPausesAreNoEvidence() {
        ThrashSignal t = new ThrashSignal(false, 30 * SECOND);
        long now = steps(t, 50, 30 * SECOND, 0.3, 0);
        assertThat(t.engaged(now)).isFalse();
    }

    @Test
    void missesAfterShortPausesEngageItAndItLetsGoOnlyAfterACalmPeriod() {
        ThrashSignal t = new ThrashSignal(false, 30 * SECOND);
        long now = steps(t, 12, SECOND, 0.3, 0);
        assertThat(t.engaged(now)).isTrue();
        // Engaged admission prevents the misses; while it still finds no room for someone, it stays engaged.
        for (int i = 0; i < 4; i++) {
            now = steps(t, 10, SECOND, 0.98, now);
            t.noRoom(now);
        }
        assertThat(t.engaged(now + 10 * SECOND)).isTrue();
        assertThat(t.engaged(now + 31 * SECOND)).isFalse();
    }

    @Test
    void anEngineFullOfRunningRequestsWithOthersWaitingEngagesItOnlyWhileSomeSessionsLoseTheirPrefix() {
        ThrashSignal t = new ThrashSignal(false, 30 * SECOND);
        t.kvFullWithQueue(0);
        assertThat(t.engaged(0)).as("long prompts fill the engine, nobody misses").isFalse();
        // Every fifth session back after a short pause misses its prefix: not enough alone, enough with a full engine.
        long now = 100 * SECOND;
        for (int i = 0; i < 30; i++) {
            now = steps(t, 1, SECOND, i % 5 == 0 ? 0.2 : 0.98, now);
        }
        assertThat(t.engaged(now)).isFalse();
        t.kvFullWithQueue(now);
        assertThat(t.engaged(now)).isTrue();
        // It lets go once the misses are rare and the engines have had room for the calm period.
        now = steps(t, 30, SECOND, 0.98, now);
        assertThat(t.engaged(now + 31 * SECOND)).isFalse();
    }

    @Test
    void alwaysIsAlwaysEngaged() {
        assertThat(new ThrashSignal(true, 30 * SECOND).engaged(0)).isTrue();
    }
}
