package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The forecast's correction: the median of realised / predicted over the recent outcomes, with timed-out newcomers as
 * censored (their wait is at least the timeout), held within a factor of 8, and 1 until there are enough outcomes.
 */
class ForecastErrorTest {

    private static final long SECOND = 1_000_000_000L;

    private static ForecastError.Outcome admitted(double predictedSeconds, double waitedSeconds) {
        return new ForecastError.Outcome((long) (predictedSeconds * SECOND), (long) (predictedSeconds * SECOND), (long) (waitedSeconds * SECOND), false);
    }

    private static ForecastError.Outcome timedOut(double predictedSeconds, double timeoutSeconds) {
        return new ForecastError.Outcome((long) (predictedSeconds * SECOND), (long) (predictedSeconds * SECOND), (long) (timeoutSeconds * SECOND), true);
    }

    @Test
    void theForecastStandsUncorrectedUntilThereAreEnoughOutcomes() {
        ForecastError error = new ForecastError();
        for (int i = 0; i < ForecastError.MIN_OUTCOMES - 1; i++) {
            error.add(admitted(10, 20));
        }
        assertThat(error.correction()).isEqualTo(1);
        error.add(admitted(10, 20));
        assertThat(error.correction()).isCloseTo(2, within(1e-9));
    }

    @Test
    void theCorrectionIsTheMedianRatioWhateverTheWaitsLength() {
        ForecastError error = new ForecastError();
        // Predicted 4 s to 40 s, realised a quarter to four times that: the median factor is 0.5.
        double[] factors = {0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 2, 4};
        for (int i = 0; i < factors.length; i++) {
            double predicted = 4 + 4 * i;
            error.add(admitted(predicted, predicted * factors[i]));
        }
        assertThat(error.correction()).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void aTimedOutNewcomerCountsAsAtLeastTheTimeoutNotAsTheTimeout() {
        ForecastError error = new ForecastError();
        // Predicted 10 s each: four admitted early, two late, four timed out at 10 s (ratio at least 1). Counting the
        // timeouts as waits of 10 s would make the median 1; leaving them out, 0.7; they are known only to be longer.
        for (double waited : new double[] {5, 6, 7, 8, 20, 25}) {
            error.add(admitted(10, waited));
        }
        for (int i = 0; i < 4; i++) {
            error.add(timedOut(10, 10));
        }
        assertThat(error.correction()).isCloseTo(2.0, within(1e-9));
        ForecastError.Figures f = error.figures();
        assertThat(f.outcomes()).isEqualTo(10);
        assertThat(f.censored()).isEqualTo(4);
        assertThat(f.ratioMedian()).isCloseTo(2.0, within(1e-9));
        assertThat(f.realisedMedianNanos()).isCloseTo(20.0 * SECOND, within(1.0));
        assertThat(f.predictedMedianNanos()).isCloseTo(10.0 * SECOND, within(1.0));
        assertThat(f.ratioP90()).as("the last one at risk was admitted").isCloseTo(2.5, within(1e-9));
    }

    @Test
    void whenMostTimedOutTheLargestBoundIsTheCorrection() {
        ForecastError error = new ForecastError();
        error.add(admitted(10, 5));
        error.add(admitted(10, 8));
        for (int i = 0; i < 8; i++) {
            error.add(timedOut(10 + i, 30));
        }
        // The median is past 30 / 10 = 3: at least the largest ratio seen, which is all that is known.
        assertThat(error.correction()).isCloseTo(3.0, within(1e-9));
    }

    @Test
    void theCorrectionFollowsTheRecentWindowAndStaysWithinBounds() {
        ForecastError error = new ForecastError();
        for (int i = 0; i < ForecastError.WINDOW; i++) {
            error.add(admitted(1, 100));
        }
        assertThat(error.correction()).isEqualTo(ForecastError.MAX_FACTOR);
        for (int i = 0; i < ForecastError.WINDOW / 2 + 1; i++) {
            error.add(admitted(10, 13));
        }
        assertThat(error.correction()).as("more than half of the window is the new regime").isCloseTo(1.3, within(1e-9));
    }
}
