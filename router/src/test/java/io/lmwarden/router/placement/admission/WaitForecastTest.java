package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A newcomer's forecast: (newcomers ahead + 1) over the newcomers' admission rate, times the forecast's recent error;
 * what the fail-fast rule holds against the queue timeout is the corrected forecast, and only once its error is measured.
 */
class WaitForecastTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long TIMEOUT = 30 * SECOND;

    /** A newcomer forecast at {@code predicted} waits alone from {@code from} and is admitted {@code waited} later. */
    private static void waitsAlone(WaitForecast f, WaitPrediction predicted, long from, long waited) {
        f.queued(predicted, TIMEOUT);
        f.waiting(1, from);
        f.admitted(predicted, waited, from + waited);
        f.waiting(0, from + waited);
    }

    @Test
    void theForecastIsTheNewcomersAheadAtTheirPaceTimesItsRecentError() {
        WaitForecast f = new WaitForecast();
        long t = 0;
        for (int i = 0; i < 3; i++) {
            waitsAlone(f, WaitPrediction.UNKNOWN, t, 20 * SECOND);
            t += 20 * SECOND;
        }
        // One admission per 20 s of waiting: a newcomer behind one other is forecast at 40 s, past the 30 s timeout.
        WaitPrediction behindOne = f.predict(1, t);
        assertThat(behindOne.rawNanos()).isEqualTo(40 * SECOND);
        assertThat(behindOne.correctedNanos()).isEqualTo(40 * SECOND);
        assertThat(behindOne.passes(TIMEOUT)).as("its error not measured yet: no one is refused on it").isFalse();

        // Eight newcomers forecast at 40 s wait 20 s each (the pace unchanged): the forecast runs twice too long.
        for (int i = 0; i < ForecastError.MIN_OUTCOMES; i++) {
            waitsAlone(f, new WaitPrediction(40 * SECOND, 40 * SECOND, false), t, 20 * SECOND);
            t += 20 * SECOND;
        }
        assertThat(f.correction()).isEqualTo(0.5);
        WaitPrediction corrected = f.predict(1, t);
        assertThat(corrected.rawNanos()).isEqualTo(40 * SECOND);
        assertThat(corrected.correctedNanos()).isEqualTo(20 * SECOND);
        assertThat(corrected.passes(TIMEOUT)).as("refused only on the corrected forecast").isFalse();
        WaitPrediction behindThree = f.predict(3, t);
        assertThat(behindThree.correctedNanos()).isEqualTo(40 * SECOND);
        assertThat(behindThree.passes(TIMEOUT)).as("measured, and past the timeout corrected").isTrue();

        Map<String, Object> report = f.report(true, t);
        assertThat(report).containsEntry("predictions", 8L).containsEntry("unpredicted", 3L).containsEntry("admitted", 8L)
                .containsEntry("correction", 0.5).containsEntry("newcomersAdmittedPerMinute", 3.0);
        assertThat(report.get("recent").toString()).contains("realisedOverPredictedMedian=0.5", "predictedMedianSeconds=40.0",
                "realisedMedianSeconds=20.0");
        assertThat(report).containsEntry("measured", true);
        assertThat(report.get("pastTimeout").toString()).as("forecast past the timeout before it was measured: not counted")
                .isEqualTo("{queued=0, timedOut=0}");
    }

    @Test
    void aTimedOutNewcomerIsSettledAtLeastTheTimeoutAndAWithdrawnOneNotAtAll() {
        WaitForecast f = new WaitForecast();
        WaitPrediction p = new WaitPrediction(10 * SECOND, 10 * SECOND, false);
        f.queued(p, TIMEOUT);
        assertThat(f.timedOut(p, 31 * SECOND, TIMEOUT)).hasValueSatisfying(o -> {
            assertThat(o.censored()).isTrue();
            assertThat(o.realisedNanos()).isEqualTo(31 * SECOND);
        });
        f.queued(p, TIMEOUT);
        f.withdrawn(p);
        assertThat(f.timedOut(WaitPrediction.UNKNOWN, 31 * SECOND, TIMEOUT)).as("no forecast, no outcome").isEmpty();
        Map<String, Object> report = f.report(false, 0);
        assertThat(report).containsEntry("failFast", false).containsEntry("predictions", 2L).containsEntry("timedOut", 1L)
                .containsEntry("withdrawn", 1L).containsEntry("admitted", 0L);
        assertThat(report.get("recent").toString()).contains("outcomes=1", "timedOut=1", "realisedOverPredictedMedian=null");
    }
}
