package io.lmwarden.bench.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class DistributionTest {

    private static Distribution parse(String yaml, DistributionSpec.Unit unit) throws Exception {
        return DistributionSpec.parse(new ObjectMapper(new YAMLFactory()).readTree(yaml), unit, "x");
    }

    @Test
    void aLogNormalByP50AndP90PassesThroughBothAndHasTheLogNormalsShape() {
        Distribution d = Distribution.Quantiles.logNormal(10, 162);
        assertThat(d.quantile(0.5)).isCloseTo(10, within(1e-6));
        assertThat(d.quantile(0.9)).isCloseTo(162, within(1e-4));
        // log-normal: symmetric in log space around the median
        assertThat(d.quantile(0.1)).isCloseTo(10 * 10 / 162.0, within(1e-4));
        // sigma = ln(16.2) / 1.2816; mean = median * exp(sigma^2 / 2)
        double sigma = Math.log(16.2) / 1.2815516;
        assertThat(d.mean()).isCloseTo(10 * Math.exp(sigma * sigma / 2), within(10 * Math.exp(sigma * sigma / 2) * 0.03));
    }

    @Test
    void quantileTablesAreMetAtEveryGivenPointAndDrawsFollowThem() {
        Distribution d = new Distribution.Quantiles(List.of(new Distribution.Quantiles.Point(0.1, 4), new Distribution.Quantiles.Point(0.5, 10),
                new Distribution.Quantiles.Point(0.9, 162), new Distribution.Quantiles.Point(0.95, 449)), 0, 1800);
        assertThat(d.quantile(0.1)).isCloseTo(4, within(1e-6));
        assertThat(d.quantile(0.95)).isCloseTo(449, within(1e-3));
        assertThat(d.quantile(0.999999)).isEqualTo(1800); // clipped by max
        SplittableRandom r = new SplittableRandom(1);
        double[] draws = new double[100_000];
        int overAMinute = 0;
        for (int i = 0; i < draws.length; i++) {
            draws[i] = d.sample(r);
            overAMinute += draws[i] > 60 ? 1 : 0;
        }
        java.util.Arrays.sort(draws);
        assertThat(draws[10_000]).isCloseTo(4, within(0.2));
        assertThat(draws[50_000]).isCloseTo(10, within(0.4));
        assertThat(draws[90_000]).isCloseTo(162, within(8.0));
        // the published table: 18.7 % of pauses over a minute
        assertThat(overAMinute / (double) draws.length).isBetween(0.17, 0.22);
    }

    @Test
    void theOriginalUniformThinkTimeIsDrawnExactlyAsBefore() {
        Distribution d = new Distribution.Uniform(2e9, 0.75);
        double u = new SplittableRandom(7).nextDouble();
        assertThat(d.sample(new SplittableRandom(7))).isEqualTo(2e9 * (1 - 0.75 + 2 * 0.75 * u));
        assertThat(new Distribution.IntRange(4, 9).sample(new SplittableRandom(3))).isEqualTo(4 + new SplittableRandom(3).nextInt(6));
    }

    @Test
    void workloadFilesWriteThemAsNumbersRangesMeansOrQuantiles() throws Exception {
        assertThat(parse("300", DistributionSpec.Unit.COUNT)).isEqualTo(new Distribution.Constant(300));
        assertThat(parse("{min: 3, max: 8}", DistributionSpec.Unit.COUNT)).isEqualTo(new Distribution.IntRange(3, 8));
        assertThat(parse("{mean: 10s, jitter: 0.75}", DistributionSpec.Unit.DURATION)).isEqualTo(new Distribution.Uniform(10e9, 0.75));
        Distribution q = parse("{p90: 162s, p50: 10s, max: 30m}", DistributionSpec.Unit.DURATION);
        assertThat(q.quantile(0.5)).isCloseTo(10e9, within(1.0));
        assertThat(q.describe(v -> String.valueOf((long) (v / 1e9)))).startsWith("log-normal p50 10, p90 162, max 1800");
        assertThatThrownBy(() -> parse("{p50: 10, p90: 5}", DistributionSpec.Unit.COUNT)).hasMessageContaining("x: quantiles must grow");
        assertThatThrownBy(() -> parse("{p50: 10}", DistributionSpec.Unit.COUNT)).hasMessageContaining("at least two quantiles");
        assertThatThrownBy(() -> parse("{median: 10}", DistributionSpec.Unit.COUNT)).hasMessageContaining("x: unknown key 'median'");
        assertThatThrownBy(() -> parse("{p50: soon, p90: 5s}", DistributionSpec.Unit.DURATION)).hasMessageContaining("x.p50");
        assertThatThrownBy(() -> parse("{mean: 10, p50: 3, p90: 4}", DistributionSpec.Unit.COUNT)).hasMessageContaining("stands alone");
    }
}
