package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.lmwarden.operator.model.ModelDeploymentSpec;
import io.lmwarden.operator.model.RouterSpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EffectiveSpecTest {

    @Test
    void aSpecWithOnlyTheModelGetsWorkingDefaults() {
        ModelDeploymentSpec spec = new ModelDeploymentSpec();
        spec.setModel("Qwen/Qwen3-4B-Instruct-2507");
        EffectiveSpec effective = EffectiveSpec.of(spec, OperatorDefaults.builtIn());

        assertThat(effective.servedModelName()).isEqualTo("Qwen/Qwen3-4B-Instruct-2507");
        assertThat(effective.vllmImage()).matches(".+:v[0-9.]+");
        assertThat(effective.dataParallelSize()).isEqualTo(1);
        assertThat(effective.tensorParallelSize()).isEqualTo(1);
        assertThat(effective.nodeSelector()).containsEntry("nvidia.com/gpu.present", "true");
        assertThat(effective.tolerations()).containsExactly(EffectiveSpec.GPU_TOLERATION);
        assertThat(effective.router().image()).isEqualTo(OperatorDefaults.BUILT_IN_ROUTER_IMAGE);
        assertThat(effective.router().policy()).isEqualTo("affinity");
        assertThat(effective.router().spillThreshold()).isEqualTo("auto");
        assertThat(effective.router().affinity()).isTrue();
        assertThat(effective.router().sessionIdleTimeout()).isEqualTo("2h");
        assertThat(effective.router().replicas()).isEqualTo(1);
        assertThat(effective.simulated()).isFalse();
        assertThat(effective.modelCacheClaim()).isEmpty();
    }

    @Test
    void anEmptyNodeSelectorIsKeptNotReplacedByTheGpuDefault() {
        ModelDeploymentSpec spec = new ModelDeploymentSpec();
        spec.setModel("m");
        spec.setNodeSelector(java.util.Map.of());
        spec.setTolerations(java.util.List.of());
        EffectiveSpec effective = EffectiveSpec.of(spec, OperatorDefaults.builtIn());
        assertThat(effective.nodeSelector()).isEmpty();
        assertThat(effective.tolerations()).isEmpty();
    }

    @Test
    void badValuesAreRejectedWithAMessageNamingTheField() {
        ModelDeploymentSpec noModel = new ModelDeploymentSpec();
        assertThatThrownBy(() -> EffectiveSpec.of(noModel, OperatorDefaults.builtIn()))
                .hasMessageContaining("spec.model is required");

        ModelDeploymentSpec zeroReplicas = new ModelDeploymentSpec();
        zeroReplicas.setModel("m");
        zeroReplicas.setDataParallelSize(0);
        assertThatThrownBy(() -> EffectiveSpec.of(zeroReplicas, OperatorDefaults.builtIn()))
                .hasMessageContaining("dataParallelSize must be at least 1");

        ModelDeploymentSpec badSpill = new ModelDeploymentSpec();
        badSpill.setModel("m");
        RouterSpec router = new RouterSpec();
        router.setSpillThreshold(new IntOrString("lots"));
        badSpill.setRouter(router);
        assertThatThrownBy(() -> EffectiveSpec.of(badSpill, OperatorDefaults.builtIn()))
                .hasMessageContaining("spillThreshold must be 'auto' or an integer");

        router.setSpillThreshold(new IntOrString(0));
        assertThatThrownBy(() -> EffectiveSpec.of(badSpill, OperatorDefaults.builtIn()))
                .hasMessageContaining("spillThreshold");

        router.setSpillThreshold(new IntOrString("12"));
        assertThat(EffectiveSpec.of(badSpill, OperatorDefaults.builtIn()).router().spillThreshold()).isEqualTo("12");
    }

    @Test
    void operatorDefaultsNeedARouterImage() {
        assertThatThrownBy(() -> new OperatorDefaults(" ", "Always")).hasMessageContaining("router image");
        assertThat(new OperatorDefaults("x/router:1", null).imagePullPolicy()).isEqualTo("IfNotPresent");
    }
}
