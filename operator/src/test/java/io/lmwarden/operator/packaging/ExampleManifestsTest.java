package io.lmwarden.operator.packaging;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lmwarden.operator.dependent.EffectiveSpec;
import io.lmwarden.operator.dependent.OperatorDefaults;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The examples under deploy/examples are valid ModelDeployments that mean what their comments say. */
class ExampleManifestsTest {
    private final KubernetesSerialization serialization = new KubernetesSerialization();

    @Test
    void referenceExampleIsQwen3FourBWithFourSingleGpuReplicas() {
        ModelDeployment md = load("qwen3-4b-dp4.yaml");
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn());
        assertThat(spec.model()).isEqualTo("Qwen/Qwen3-4B-Instruct-2507");
        assertThat(spec.dataParallelSize()).isEqualTo(4);
        assertThat(spec.tensorParallelSize()).isEqualTo(1);
        assertThat(spec.router().spillThreshold()).isEqualTo("auto");
        assertThat(spec.maxNumSeqs()).contains(32);
        assertThat(spec.simulated()).isFalse();
    }

    @Test
    void simulatedExampleNeedsNoGpu() {
        ModelDeployment md = load("simulated.yaml");
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn());
        assertThat(spec.simulated()).isTrue();
        assertThat(spec.nodeSelector()).isEmpty();
        assertThat(spec.tolerations()).isEmpty();
    }

    @Test
    void isolatedExampleMakesBothNetworkPoliciesAndGuardsTheAdminApi() {
        ModelDeployment md = load("simulated-isolated.yaml");
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn());
        assertThat(spec.simulated()).isTrue();
        assertThat(new io.lmwarden.operator.dependent.NetworkPolicyEnabled().isMet(null, md, null)).isTrue();
        assertThat(spec.networkPolicy().routerClients()).singleElement()
                .satisfies(p -> assertThat(p.getPodSelector().getMatchLabels()).containsEntry("role", "agent"));
        assertThat(spec.networkPolicy().metricsScrapers()).singleElement()
                .satisfies(p -> assertThat(p.getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "monitoring"));
        assertThat(spec.router().adminTokenSecret()).hasValueSatisfying(s -> {
            assertThat(s.getName()).isEqualTo("lmw-admin");
            assertThat(s.getKey()).isEqualTo("token");
        });
        String yaml = RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples/simulated-isolated.yaml"));
        assertThat(yaml).contains("kubectl create secret generic lmw-admin --from-literal=token=",
                "kubectl get networkpolicy " + md.getMetadata().getName() + "-replicas " + md.getMetadata().getName() + "-router");
    }

    private ModelDeployment load(String file) {
        String yaml = RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples").resolve(file));
        ModelDeployment md = serialization.unmarshal(yaml, ModelDeployment.class);
        assertThat(md.getApiVersion()).isEqualTo("lmwarden.io/v1alpha1");
        assertThat(md.getKind()).isEqualTo("ModelDeployment");
        return md;
    }
}
