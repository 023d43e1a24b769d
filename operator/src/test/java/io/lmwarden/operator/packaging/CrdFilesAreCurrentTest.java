package io.lmwarden.operator.packaging;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The CRD under crds/ and the chart's copy must be exactly what the build generates from the model classes. */
class CrdFilesAreCurrentTest {

    @Test
    void checkedInCrdCopiesEqualTheGeneratedOne() {
        String generated = RepositoryFiles.read(RepositoryFiles.generatedCrd());
        for (Path copy : List.of(RepositoryFiles.root().resolve("crds").resolve(RepositoryFiles.CRD_FILE),
                RepositoryFiles.chart().resolve("crds").resolve(RepositoryFiles.CRD_FILE))) {
            if (RepositoryFiles.updateRequested()) {
                RepositoryFiles.write(copy, generated);
            }
            assertThat(copy).as(copy + " is missing; " + RepositoryFiles.howToRefresh()).exists();
            assertThat(RepositoryFiles.read(copy))
                    .as(copy + " differs from the CRD generated from the model classes; " + RepositoryFiles.howToRefresh())
                    .isEqualTo(generated);
        }
    }

    @Test
    void crdHasTheNamesPrinterColumnsAndStatusSubresource() {
        CustomResourceDefinition crd = crd();
        assertThat(crd.getMetadata().getName()).isEqualTo("modeldeployments.lmwarden.io");
        assertThat(crd.getSpec().getGroup()).isEqualTo("lmwarden.io");
        assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo("ModelDeployment");
        assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("md");
        CustomResourceDefinitionVersion version = version(crd);
        assertThat(version.getName()).isEqualTo("v1alpha1");
        assertThat(version.getServed()).isTrue();
        assertThat(version.getStorage()).isTrue();
        assertThat(version.getSubresources().getStatus()).isNotNull();
        assertThat(version.getAdditionalPrinterColumns())
                .extracting(CustomResourceColumnDefinition::getName, CustomResourceColumnDefinition::getJsonPath)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("Model", ".spec.model"),
                        org.assertj.core.groups.Tuple.tuple("DP", ".spec.dataParallelSize"),
                        org.assertj.core.groups.Tuple.tuple("TP", ".spec.tensorParallelSize"),
                        org.assertj.core.groups.Tuple.tuple("Ready", ".status.readyReplicas"),
                        org.assertj.core.groups.Tuple.tuple("Endpoint", ".status.endpoint"),
                        org.assertj.core.groups.Tuple.tuple("Age", ".metadata.creationTimestamp"));
    }

    @Test
    void specSchemaValidatesWhatTheOperatorReliesOn() {
        JSONSchemaProps spec = version(crd()).getSchema().getOpenAPIV3Schema().getProperties().get("spec");
        assertThat(spec.getRequired()).containsExactly("model");
        assertThat(spec.getProperties()).containsKeys("model", "servedModelName", "image", "dataParallelSize",
                "tensorParallelSize", "maxNumSeqs", "maxModelLen", "gpuMemoryUtilization", "extraArgs", "env",
                "resources", "nodeSelector", "tolerations", "modelCache", "hfTokenSecret", "router", "simulator");
        assertThat(spec.getProperties().get("dataParallelSize").getMinimum()).isEqualTo(1.0);
        assertThat(spec.getProperties().get("tensorParallelSize").getMinimum()).isEqualTo(1.0);
        assertThat(spec.getProperties().get("image").getDefault().asText()).matches(".+:v[0-9.]+");
        assertThat(spec.getProperties().get("gpuMemoryUtilization").getMaximum()).isEqualTo(1.0);

        JSONSchemaProps router = spec.getProperties().get("router");
        assertThat(router.getProperties()).containsKeys("replicas", "image", "policy", "spillThreshold", "affinity",
                "sessionIdleTimeout", "admission", "resources");
        JSONSchemaProps admission = router.getProperties().get("admission");
        assertThat(admission.getProperties()).containsOnlyKeys("enabled", "kvBudget", "residencyIdle", "residencySlice",
                "queueMax", "queueTimeout", "queueKeepAlive");
        assertThat(admission.getProperties().get("enabled").getDefault()).as("unset follows the router's default").isNull();
        assertThat(admission.getProperties().get("queueMax").getMinimum()).isEqualTo(0.0);
        assertThat(admission.getProperties().get("queueTimeout").getPattern()).isEqualTo("^[0-9]+(ms|s|m|h)$");
        JSONSchemaProps spill = router.getProperties().get("spillThreshold");
        assertThat(spill.getXKubernetesIntOrString()).isTrue();
        assertThat(spill.getDefault().asText()).isEqualTo("auto");
        assertThat(spill.getXKubernetesValidations()).extracting(ValidationRule::getRule)
                .containsExactly("type(self) == int ? self >= 1 : self == 'auto'");
        assertThat(router.getProperties().get("policy").getPattern()).contains("affinity", "least-loaded", "round-robin");
        assertThat(spec.getProperties().get("simulator").getProperties()).containsKeys("enabled", "profile");
        assertThat(spec.getProperties().get("modelCache").getXKubernetesValidations()).hasSize(1);
        assertThat(spec.getXKubernetesValidations()).hasSize(2);

        JSONSchemaProps status = version(crd()).getSchema().getOpenAPIV3Schema().getProperties().get("status");
        assertThat(status.getProperties()).containsKeys("observedGeneration", "readyReplicas", "routerReady", "endpoint", "conditions");
    }

    static CustomResourceDefinition crd() {
        return new KubernetesSerialization().unmarshal(RepositoryFiles.read(RepositoryFiles.generatedCrd()), CustomResourceDefinition.class);
    }

    private static CustomResourceDefinitionVersion version(CustomResourceDefinition crd) {
        assertThat(crd.getSpec().getVersions()).hasSize(1);
        return crd.getSpec().getVersions().get(0);
    }
}
