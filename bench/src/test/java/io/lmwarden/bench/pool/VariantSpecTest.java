package io.lmwarden.bench.pool;

import io.lmwarden.router.config.AdmissionSettings;
import io.lmwarden.router.config.PlacementSettings;
import io.lmwarden.router.config.RouterConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VariantSpecTest {

    private final RouterConfig base = RouterConfig.defaults();

    @Test
    void defaultIsTheRoutersOwnConfigurationUntouched() {
        RouterConfig c = VariantSpec.parse("default").apply(base.with(AdmissionSettings.KV_BUDGET, 0.7));
        assertThat(c.placement().policy()).isEqualTo(PlacementSettings.POLICY.defaultValue());
        assertThat(c.admission().enabled()).isEqualTo(AdmissionSettings.ADMISSION.defaultValue());
        assertThat(c.admission().kvBudget()).isEqualTo(0.7);
    }

    @Test
    void aPolicyNameRunsWithoutAdmissionAndTheSuffixSwitchesItOn() {
        assertThat(VariantSpec.parse("affinity").apply(base.with(AdmissionSettings.ADMISSION, true)).admission().enabled()).isFalse();
        RouterConfig c = VariantSpec.parse("cost+admission").apply(base.with(AdmissionSettings.ADMISSION, false));
        assertThat(c.placement().policy()).isEqualTo("cost");
        assertThat(c.admission().enabled()).isTrue();
    }
}
