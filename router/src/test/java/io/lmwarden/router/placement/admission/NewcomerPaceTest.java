package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The rate newcomers leave the queue admitted: intervals between admissions, over the time newcomers waited. */
class NewcomerPaceTest {

    private static final long SECOND = 1_000_000_000L;

    private static double perMinute(NewcomerPace pace, long now) {
        return pace.ratePerNano(now) * 60 * SECOND;
    }

    /** One newcomer waits from {@code from} and is admitted {@code waited} seconds later. */
    private static void oneWaits(NewcomerPace pace, long from, long waited) {
        pace.waiting(1, from * SECOND);
        pace.admitted((from + waited) * SECOND);
        pace.waiting(0, (from + waited) * SECOND);
    }

    @Test
    void unknownUntilThreeAdmissions() {
        NewcomerPace pace = new NewcomerPace();
        oneWaits(pace, 0, 10);
        oneWaits(pace, 10, 10);
        assertThat(pace.ratePerNano(20 * SECOND)).isNaN();
        oneWaits(pace, 20, 10);
        assertThat(perMinute(pace, 30 * SECOND)).isCloseTo(6, within(1e-9));
    }

    @Test
    void timeWithNoNewcomerWaitingIsNotCounted() {
        NewcomerPace pace = new NewcomerPace();
        // Three waits of 10 s, with long empty stretches between them: 2 intervals of 10 s, not of 100 s and more.
        oneWaits(pace, 0, 10);
        oneWaits(pace, 110, 10);
        oneWaits(pace, 290, 10);
        assertThat(perMinute(pace, 400 * SECOND)).isCloseTo(6, within(1e-9));
    }

    @Test
    void aStalledQueueReadsSlowerAtOnceAndTimeSpentByNewcomersWhoLeftCounts() {
        NewcomerPace pace = new NewcomerPace();
        oneWaits(pace, 0, 10);
        oneWaits(pace, 10, 10);
        oneWaits(pace, 20, 10);
        pace.waiting(2, 30 * SECOND);
        // 30 s more without an admission: two intervals of 10 s and one open for 30 s so far.
        assertThat(perMinute(pace, 60 * SECOND)).isCloseTo(2 * 60.0 / 50, within(1e-9));
        // Both leave without admission (timed out) at 90 s; a third is admitted at once later: 3 intervals over 80 s.
        pace.waiting(0, 90 * SECOND);
        oneWaits(pace, 200, 0);
        assertThat(perMinute(pace, 300 * SECOND)).isCloseTo(3 * 60.0 / 80, within(1e-9));
    }

    @Test
    void theTimeBeforeTheFirstAdmissionIsNotAnInterval() {
        NewcomerPace pace = new NewcomerPace();
        // Newcomers wait 100 s for the first admission, then three come 10 s apart: the rate is one per 10 s.
        pace.waiting(5, 0);
        for (long t : new long[] {100, 110, 120}) {
            pace.admitted(t * SECOND);
        }
        assertThat(perMinute(pace, 120 * SECOND)).isCloseTo(6, within(1e-9));
    }

    @Test
    void theRateIsTheLastWindowOfAdmissions() {
        NewcomerPace pace = new NewcomerPace();
        long t = 0;
        for (int i = 0; i < 40; i++) {
            oneWaits(pace, t, 1);
            t += 1;
        }
        for (int i = 0; i < NewcomerPace.WINDOW; i++) {
            oneWaits(pace, t, 10);
            t += 10;
        }
        assertThat(perMinute(pace, t * SECOND)).isCloseTo(6, within(1e-9));
    }
}
