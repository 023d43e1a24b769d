package io.lmwarden.bench.pool;

import io.lmwarden.router.config.RouterConfig;
import io.lmwarden.router.config.RouterOption;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VariantSpecTest {

    private final RouterConfig base = RouterConfig.defaults();

    @Test
    void defaultIsTheRoutersOwnConfigurationUntouched() {
        RouterConfig c = VariantSpec.parse("default").apply(base.withKvBudget(0.7));
        assertThat(c.policy()).isEqualTo(RouterOption.POLICY.defaultValue());
        assertThat(c.admission()).isEqualTo(Boolean.parseBoolean(RouterOption.ADMISSION.defaultValue()));
        assertThat(c.kvBudget()).isEqualTo(0.7);
    }

    @Test
    void aPolicyNameRunsWithoutAdmissionAndTheSuffixSwitchesItOn() {
        assertThat(VariantSpec.parse("affinity").apply(base.withAdmission(true)).admission()).isFalse();
        RouterConfig c = VariantSpec.parse("cost+admission").apply(base.withAdmission(false));
        assertThat(c.policy()).isEqualTo("cost");
        assertThat(c.admission()).isTrue();
    }
}
