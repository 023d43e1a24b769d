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
        assertThat(md.getSpec().getImage()).as("the operator's default image").isEqualTo(io.lmwarden.operator.model.Defaults.VLLM_IMAGE);
        assertThat(md.getSpec().getKvOffload().getSizeGiB().getStrVal()).as("the host tier sized by the operator").isEqualTo("auto");
        assertThat(EffectiveSpec.sizesTierFromNodes(md.getSpec())).isTrue();
    }

    /** Two router pods, and what the operator makes of them: one cluster that shares the sessions' homes (issue 33). */
    @Test
    void referenceExampleRunsTwoRouterPodsAsOneCluster() {
        ModelDeployment md = load("qwen3-4b-dp4.yaml");
        md.getMetadata().setNamespace("agents");
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn());
        assertThat(spec.router().replicas()).isEqualTo(2);
        assertThat(io.lmwarden.operator.dependent.RouterClustered.clustered(spec)).isTrue();
        var names = io.lmwarden.operator.dependent.ResourceNames.of(md);
        assertThat(new io.lmwarden.operator.dependent.RouterSettings(spec, names).args())
                .containsSubsequence("--cluster", "dns:qwen3-4b-router-peers.agents.svc.cluster.local")
                .containsSubsequence("--cluster-name", "agents/qwen3-4b");
        var deployment = new io.lmwarden.operator.dependent.RouterDeploymentDependent().desired(md);
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
                .as("a rolling update never lowers the routers serving").isZero();
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .anySatisfy(e -> assertThat(e.getName()).isEqualTo("LMW_CLUSTER_BIND"));
        var peers = new io.lmwarden.operator.dependent.RouterPeerServiceDependent().desired(md);
        assertThat(peers.getSpec().getPublishNotReadyAddresses()).as("a new router finds the others before it is ready").isTrue();
        assertThat(new io.lmwarden.operator.dependent.RouterDisruptionBudgetDependent().desired(md).getSpec().getMinAvailable()
                .getIntVal()).as("a voluntary disruption leaves one router").isEqualTo(1);
        assertThat(new io.lmwarden.operator.dependent.RouterClustered().isMet(null, md, null)).isTrue();
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

    @Test
    void loraExampleServesThreeAdaptersFromAClaimAndHuggingFaceAsItsCommentSays() {
        ModelDeployment md = load("qwen3-4b-lora.yaml");
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn());
        io.lmwarden.operator.dependent.LoraServing lora = spec.lora().orElseThrow();
        assertThat(lora.adapters()).extracting(io.lmwarden.operator.dependent.LoraServing.Adapter::name)
                .containsExactly("team-coder", "py-coder", "sql-coder");
        assertThat(lora.claims()).containsExactly("lora-adapters");
        assertThat(lora.runtimeUpdating()).isFalse();
        var names = io.lmwarden.operator.dependent.ResourceNames.of(md);
        String rendered = String.join(" ", new io.lmwarden.operator.dependent.ReplicaPodTemplate(spec, OperatorDefaults.builtIn(), names)
                .vllmArgs());
        String comment = RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples/qwen3-4b-lora.yaml")).lines()
                .takeWhile(l -> l.startsWith("#")).map(l -> l.substring(1).strip()).collect(java.util.stream.Collectors.joining(" "));
        String said = comment.substring(comment.indexOf("--enable-lora"), comment.indexOf("` (operator/README.md"));
        assertThat(rendered).as("the flags the example's comment shows").contains(said);
    }

    /** The router metrics the operator's autoscaling examples may query (the contract between the router and the
     *  operator): what an autoscaler needs to add replicas before agents wait. */
    static final java.util.Set<String> AUTOSCALING_METRICS = java.util.Set.of("lmw_queue_length", "lmw_queue_oldest_wait_seconds",
            "lmw_kv_budget_used_ratio", "lmw_admission_rejected_total");

    @Test
    void theKedaExampleScalesTheReferenceModelDeploymentThroughItsScaleSubresourceOnTheRoutersSignals() throws Exception {
        com.fasterxml.jackson.databind.JsonNode so = yaml("autoscaling-keda.yaml");
        assertThat(so.path("apiVersion").asText()).isEqualTo("keda.sh/v1alpha1");
        assertScalesTheReferenceModelDeployment(so.path("spec").path("scaleTargetRef"));
        assertThat(so.path("spec").path("minReplicaCount").asInt()).as("a ModelDeployment has at least one replica").isGreaterThanOrEqualTo(1);
        java.util.Set<String> queried = new java.util.TreeSet<>();
        for (com.fasterxml.jackson.databind.JsonNode trigger : so.path("spec").path("triggers")) {
            assertThat(trigger.path("type").asText()).isEqualTo("prometheus");
            String query = trigger.path("metadata").path("query").asText();
            assertThat(query).as("only this ModelDeployment's routers").contains("deployment=\"qwen3-4b\"");
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("lmw_[a-z_]+").matcher(query);
            while (m.find()) {
                queried.add(m.group());
            }
        }
        assertThat(queried).isEqualTo(AUTOSCALING_METRICS);
        assertThat(so.path("spec").path("advanced").path("horizontalPodAutoscalerConfig").path("behavior").path("scaleDown")
                .path("policies").get(0).path("value").asInt()).as("one drained replica at a time").isEqualTo(1);
    }

    @Test
    void theHpaExampleScalesTheReferenceModelDeploymentOnExternalMetricsOfItsRouters() throws Exception {
        com.fasterxml.jackson.databind.JsonNode hpa = yaml("autoscaling-hpa.yaml");
        assertThat(hpa.path("apiVersion").asText()).isEqualTo("autoscaling/v2");
        assertScalesTheReferenceModelDeployment(hpa.path("spec").path("scaleTargetRef"));
        assertThat(hpa.path("spec").path("minReplicas").asInt()).isGreaterThanOrEqualTo(1);
        java.util.Set<String> named = new java.util.TreeSet<>();
        for (com.fasterxml.jackson.databind.JsonNode metric : hpa.path("spec").path("metrics")) {
            assertThat(metric.path("type").asText()).isEqualTo("External");
            assertThat(metric.path("external").path("metric").path("selector").path("matchLabels").path("deployment").asText())
                    .isEqualTo("qwen3-4b");
            named.add(metric.path("external").path("metric").path("name").asText());
        }
        // The adapter rules in the file's comment turn the counter into a per-second rate under its own name.
        assertThat(named).containsExactlyInAnyOrder("lmw_queue_length", "lmw_queue_oldest_wait_seconds", "lmw_kv_budget_used_ratio",
                "lmw_admission_rejected_per_second");
        assertThat(RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples/autoscaling-hpa.yaml")))
                .contains("name: {as: \"lmw_admission_rejected_per_second\"}", "rate(<<.Series>>");
    }

    /** The ModelDeployment of qwen3-4b-dp4.yaml, through the scale subresource the CRD declares. */
    private void assertScalesTheReferenceModelDeployment(com.fasterxml.jackson.databind.JsonNode target) throws Exception {
        ModelDeployment reference = load("qwen3-4b-dp4.yaml");
        assertThat(target.path("apiVersion").asText()).isEqualTo(reference.getApiVersion());
        assertThat(target.path("kind").asText()).isEqualTo(reference.getKind());
        assertThat(target.path("name").asText()).isEqualTo(reference.getMetadata().getName());
        com.fasterxml.jackson.databind.JsonNode crd = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(RepositoryFiles.crd());
        assertThat(crd.at("/spec/versions/0/subresources/scale/specReplicasPath").asText()).isEqualTo(".spec.dataParallelSize");
    }

    private static com.fasterxml.jackson.databind.JsonNode yaml(String file) throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples").resolve(file)));
    }

    private ModelDeployment load(String file) {
        String yaml = RepositoryFiles.read(RepositoryFiles.root().resolve("deploy/examples").resolve(file));
        ModelDeployment md = serialization.unmarshal(yaml, ModelDeployment.class);
        assertThat(md.getApiVersion()).isEqualTo("lmwarden.io/v1alpha1");
        assertThat(md.getKind()).isEqualTo("ModelDeployment");
        return md;
    }
}
