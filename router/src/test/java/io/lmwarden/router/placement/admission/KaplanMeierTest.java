package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Quantiles of a right-censored sample: without censoring the sample's own; censored values count only as "at least". */
class KaplanMeierTest {

    private static List<KaplanMeier.Point> events(double... values) {
        List<KaplanMeier.Point> out = new ArrayList<>();
        for (double v : values) {
            out.add(new KaplanMeier.Point(v, false));
        }
        return out;
    }

    @Test
    void withoutCensoringTheQuantilesAreTheSamplesOwn() {
        List<KaplanMeier.Point> sample = events(5, 1, 4, 2, 3);
        assertThat(KaplanMeier.quantile(sample, 0.5)).isEqualTo(3);
        assertThat(KaplanMeier.quantile(sample, 0.9)).isEqualTo(5);
        assertThat(KaplanMeier.quantile(events(1, 2, 3, 4), 0.5)).as("an exact half: the lower median").isEqualTo(2);
    }

    @Test
    void aCensoredValueLeavesTheRiskSetWithoutPullingTheQuantileDownToItsBound() {
        // Four events low, four known only to be above 3, two events high: the median is among the high ones.
        List<KaplanMeier.Point> sample = events(1, 1.5, 2, 2.5, 10, 12);
        for (int i = 0; i < 4; i++) {
            sample.add(new KaplanMeier.Point(3, true));
        }
        assertThat(KaplanMeier.quantile(sample, 0.5)).isEqualTo(10);
    }

    @Test
    void whenTooMuchIsCensoredAboveEveryEventTheQuantileIsUnknown() {
        List<KaplanMeier.Point> sample = events(1, 2);
        for (int i = 0; i < 3; i++) {
            sample.add(new KaplanMeier.Point(5, true));
        }
        assertThat(KaplanMeier.quantile(sample, 0.5)).isNaN();
        assertThat(KaplanMeier.quantile(sample, 0.2)).isEqualTo(1);
        assertThat(KaplanMeier.quantile(List.of(), 0.5)).isNaN();
    }
}
