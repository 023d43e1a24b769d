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
        String generated = RepositoryFiles.crd();
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
        // kubectl get md: NAME MODEL DP TP READY ENDPOINT AGE, and -o wide adds the Ready condition's reason.
        assertThat(version.getAdditionalPrinterColumns())
                .extracting(CustomResourceColumnDefinition::getName, CustomResourceColumnDefinition::getJsonPath, CustomResourceColumnDefinition::getPriority)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("Model", ".spec.model", 0),
                        org.assertj.core.groups.Tuple.tuple("DP", ".spec.dataParallelSize", 0),
                        org.assertj.core.groups.Tuple.tuple("TP", ".spec.tensorParallelSize", 0),
                        org.assertj.core.groups.Tuple.tuple("Ready", ".status.ready", 0),
                        org.assertj.core.groups.Tuple.tuple("Endpoint", ".status.endpoint", 0),
                        org.assertj.core.groups.Tuple.tuple("Age", ".metadata.creationTimestamp", 0),
                        org.assertj.core.groups.Tuple.tuple("Status", ".status.conditions[?(@.type==\"Ready\")].reason", 1));
        assertThat(crd.getSpec().getNames().getCategories()).containsExactly("lm-warden");
        var scale = version.getSubresources().getScale();
        assertThat(scale).as("kubectl scale md <name> --replicas=N").isNotNull();
        assertThat(scale.getSpecReplicasPath()).isEqualTo(".spec.dataParallelSize");
        assertThat(scale.getStatusReplicasPath()).isEqualTo(".status.readyReplicas");
        assertThat(scale.getLabelSelectorPath()).isEqualTo(".status.selector");
    }

    @Test
    void conditionsAreShapedLikeKubernetesConditions() {
        JSONSchemaProps conditions = version(crd()).getSchema().getOpenAPIV3Schema().getProperties().get("status")
                .getProperties().get("conditions");
        assertThat(conditions.getXKubernetesListType()).isEqualTo("map");
        assertThat(conditions.getXKubernetesListMapKeys()).containsExactly("type");
        JSONSchemaProps item = conditions.getItems().getSchema();
        assertThat(item.getRequired()).containsExactlyInAnyOrder("type", "status", "lastTransitionTime", "reason", "message");
        assertThat(item.getProperties().get("status").getEnum()).extracting(com.fasterxml.jackson.databind.JsonNode::asText)
                .containsExactly("True", "False", "Unknown");
        assertThat(item.getProperties().get("lastTransitionTime").getFormat()).isEqualTo("date-time");
        assertThat(item.getProperties().get("reason").getMinLength()).isEqualTo(1L);
        // What the operator writes satisfies it: every reason StatusCalculator uses matches the pattern.
        java.util.regex.Pattern reason = java.util.regex.Pattern.compile(item.getProperties().get("reason").getPattern());
        var status = new io.lmwarden.operator.reconciler.StatusCalculator().compute(io.lmwarden.operator.SampleModelDeployments.qwenDp4("llm"),
                java.util.Optional.empty(), java.util.Optional.empty(), io.lmwarden.operator.reconciler.RolloutStep.unknown(),
                java.time.Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(status.getConditions()).allSatisfy(c -> {
            assertThat(reason.matcher(c.getReason()).matches()).as(c.getReason()).isTrue();
            assertThat(java.time.OffsetDateTime.parse(c.getLastTransitionTime())).isNotNull();
            assertThat(c.getMessage()).isNotNull();
        });
        assertThat(status.getReady()).isEqualTo("0/4");
        assertThat(status.getSelector()).isEqualTo("lmwarden.io/model-deployment=qwen3-4b,app.kubernetes.io/component=replica");
    }

    @Test
    void everyEnvEntryNeedsAName() {
        JSONSchemaProps env = version(crd()).getSchema().getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("env");
        assertThat(env.getItems().getSchema().getRequired()).containsExactly("name");
        assertThat(env.getItems().getSchema().getProperties().get("name").getMinLength()).isEqualTo(1L);
    }

    @Test
    void specSchemaValidatesWhatTheOperatorReliesOn() {
        JSONSchemaProps spec = version(crd()).getSchema().getOpenAPIV3Schema().getProperties().get("spec");
        assertThat(spec.getRequired()).containsExactly("model");
        assertThat(spec.getProperties()).containsKeys("model", "servedModelName", "image", "dataParallelSize",
                "tensorParallelSize", "maxNumSeqs", "maxModelLen", "gpuMemoryUtilization", "extraArgs", "env",
                "resources", "nodeSelector", "tolerations", "modelCache", "hfTokenSecret", "router", "simulator", "kvOffload",
                "maxUnavailable", "drainTimeout", "readyTimeout");
        assertThat(spec.getProperties().get("dataParallelSize").getMinimum()).isEqualTo(1.0);
        assertThat(spec.getProperties().get("tensorParallelSize").getMinimum()).isEqualTo(1.0);
        assertThat(spec.getProperties().get("image").getDefault().asText()).matches(".+:v[0-9.]+");
        assertThat(spec.getProperties().get("gpuMemoryUtilization").getMaximum()).isEqualTo(1.0);

        JSONSchemaProps router = spec.getProperties().get("router");
        assertThat(router.getProperties()).containsKeys("replicas", "image", "policy", "spillThreshold", "affinity",
                "sessionIdleTimeout", "admission", "resources");
        JSONSchemaProps admission = router.getProperties().get("admission");
        assertThat(admission.getProperties()).containsOnlyKeys("enabled", "kvBudget", "residencyIdle", "residencySlice",
                "queueMax", "queueTimeout", "queueWaitBound", "queueKeepAlive", "queueFailFast", "engage");
        assertThat(admission.getProperties().get("engage").getPattern()).isEqualTo("^(evidence|always)$");
        assertThat(admission.getProperties().get("enabled").getDefault()).as("unset follows the router's default").isNull();
        assertThat(admission.getProperties().get("queueMax").getMinimum()).isEqualTo(0.0);
        assertThat(admission.getProperties().get("queueTimeout").getPattern()).isEqualTo("^0*[1-9][0-9]*(ms|s|m|h)$");
        JSONSchemaProps spill = router.getProperties().get("spillThreshold");
        assertThat(spill.getXKubernetesIntOrString()).isTrue();
        assertThat(spill.getDefault().asText()).isEqualTo("auto");
        assertThat(spill.getXKubernetesValidations()).extracting(ValidationRule::getRule)
                .containsExactly("type(self) == int ? self >= 1 : self == 'auto'");
        assertThat(router.getProperties().get("policy").getPattern()).contains("affinity", "least-loaded", "round-robin");
        assertThat(spec.getProperties().get("simulator").getProperties()).containsKeys("enabled", "profile");
        assertThat(spec.getProperties().get("modelCache").getXKubernetesValidations()).hasSize(1);
        assertThat(spec.getXKubernetesValidations()).hasSize(2);

        JSONSchemaProps kvOffload = spec.getProperties().get("kvOffload");
        assertThat(kvOffload.getRequired()).containsExactly("sizeGiB");
        JSONSchemaProps size = kvOffload.getProperties().get("sizeGiB");
        assertThat(size.getXKubernetesIntOrString()).as("an integer, a decimal string or 'auto'").isTrue();
        assertThat(size.getXKubernetesValidations()).extracting(ValidationRule::getRule)
                .containsExactly("type(self) == int ? self > 0 : (self == 'auto' || double(self) > 0.0)");
        assertThat(spec.getProperties().get("schedulingPolicy").getPattern()).isEqualTo("^(fcfs|priority)$");
        assertThat(spec.getProperties().get("schedulingPolicy").getDefault().asText()).isEqualTo("fcfs");
        assertThat(kvOffload.getProperties().get("backend").getPattern()).isEqualTo("^(native|lmcache)$");
        assertThat(kvOffload.getProperties().get("backend").getDefault().asText()).isEqualTo("native");
        assertThat(spec.getProperties().get("maxUnavailable").getMinimum()).isEqualTo(1.0);
        assertThat(spec.getProperties().get("maxUnavailable").getDefault().asInt()).isEqualTo(1);
        assertThat(spec.getProperties().get("drainTimeout").getDefault().asText()).isEqualTo("5m");
        assertThat(spec.getProperties().get("readyTimeout").getDefault().asText()).isEqualTo("30m");
        JSONSchemaProps kvEvents = router.getProperties().get("kvEvents");
        assertThat(kvEvents.getProperties().get("enabled").getDefault().asBoolean()).isFalse();
        assertThat(kvEvents.getProperties().get("hashAlgorithm").getPattern()).isEqualTo("^(sha256|sha256_cbor|xxhash|xxhash_cbor)$");
        assertThat(router.getProperties().get("shutdownGrace").getDefault().asText()).isEqualTo("30s");

        JSONSchemaProps status = version(crd()).getSchema().getOpenAPIV3Schema().getProperties().get("status");
        assertThat(status.getProperties()).containsKeys("observedGeneration", "readyReplicas", "updatedReplicas", "routerReady", "endpoint",
                "conditions");
    }

    static CustomResourceDefinition crd() {
        return new KubernetesSerialization().unmarshal(RepositoryFiles.crd(), CustomResourceDefinition.class);
    }

    private static CustomResourceDefinitionVersion version(CustomResourceDefinition crd) {
        assertThat(crd.getSpec().getVersions()).hasSize(1);
        return crd.getSpec().getVersions().get(0);
    }
}
