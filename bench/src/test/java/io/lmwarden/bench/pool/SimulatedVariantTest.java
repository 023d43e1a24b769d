package io.lmwarden.bench.pool;

import io.lmwarden.sim.dp.BalancerEra;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimulatedVariantTest {

    @Test
    void aStarSuffixNamesTheRouterCountAndTheRunsDefaultAppliesWithoutIt() {
        assertThat(SimulatedVariant.parse("default*3", BalancerEra.CURRENT, 1))
                .isEqualTo(new SimulatedVariant("default", BalancerEra.CURRENT, 3));
        assertThat(SimulatedVariant.parse("affinity+admission@legacy*2", BalancerEra.CURRENT, 1))
                .isEqualTo(new SimulatedVariant("affinity+admission", BalancerEra.LEGACY, 2));
        assertThat(SimulatedVariant.parse("least-loaded", BalancerEra.CURRENT, 4).routers()).isEqualTo(4);
    }

    @Test
    void aBadRouterCountIsRefusedWithWhatToWrite() {
        assertThatThrownBy(() -> SimulatedVariant.parse("default*x", BalancerEra.CURRENT, 1))
                .hasMessageContaining("number of clustered routers (e.g. default*3)");
        assertThatThrownBy(() -> SimulatedVariant.parse("default*0", BalancerEra.CURRENT, 1))
                .hasMessageContaining("at least one router");
    }
}
