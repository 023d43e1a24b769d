package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class NetworkPolicyDesiredStateTest {
    private static final OperatorDefaults DEFAULTS = OperatorDefaults.builtIn();

    @Test
    void replicaPodsAcceptOnlyTheirRoutersAndTheMetricsScrapers() {
        ModelDeployment md = SampleModelDeployments.isolated("llm");
        NetworkPolicy policy = new ReplicaNetworkPolicyDependent(DEFAULTS).desired(md);
        StatefulSet replicas = new VllmStatefulSetDependent(DEFAULTS).desired(md);
        Deployment router = new RouterDeploymentDependent(DEFAULTS).desired(md);

        assertThat(policy.getMetadata().getName()).isEqualTo("qwen3-4b-replicas");
        assertThat(policy.getMetadata().getNamespace()).isEqualTo("llm");
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertSelects(policy.getSpec().getPodSelector(), replicas.getSpec().getTemplate().getMetadata().getLabels());
        assertNotSelects(policy.getSpec().getPodSelector(), router.getSpec().getTemplate().getMetadata().getLabels());
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        assertThat(rules).hasSize(2).allSatisfy(r -> {
            assertThat(r.getFrom()).as("a rule without peers would admit everyone").isNotEmpty();
            assertThat(r.getPorts()).singleElement().satisfies(p -> {
                assertThat(p.getPort().getIntVal()).isEqualTo(ReplicaPodTemplate.PORT);
                assertThat(p.getProtocol()).isEqualTo("TCP");
            });
        });
        NetworkPolicyPeer routers = rules.get(0).getFrom().get(0);
        assertThat(routers.getNamespaceSelector()).as("same namespace only").isNull();
        assertSelects(routers.getPodSelector(), router.getSpec().getTemplate().getMetadata().getLabels());
        assertNotSelects(routers.getPodSelector(), replicas.getSpec().getTemplate().getMetadata().getLabels());
        assertThat(rules.get(1).getFrom()).containsExactly(SampleModelDeployments.namespacePeer("monitoring"));
        // The port the policy opens is the one the replica container serves on.
        assertThat(replicas.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts())
                .anySatisfy(p -> assertThat(p.getContainerPort()).isEqualTo(ReplicaPodTemplate.PORT));
    }

    @Test
    void routerPodsAcceptTheirClientsTheScrapersAndEachOther() {
        ModelDeployment md = SampleModelDeployments.isolated("llm");
        NetworkPolicy policy = new RouterNetworkPolicyDependent(DEFAULTS).desired(md);
        Deployment router = new RouterDeploymentDependent(DEFAULTS).desired(md);

        assertThat(policy.getMetadata().getName()).isEqualTo("qwen3-4b-router");
        assertSelects(policy.getSpec().getPodSelector(), router.getSpec().getTemplate().getMetadata().getLabels());
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        assertThat(rules).hasSize(3);
        assertThat(rules.get(0).getFrom()).containsExactly(SampleModelDeployments.namespacePeer("agents"));
        assertThat(rules.get(0).getPorts()).extracting(p -> p.getPort().getIntVal()).containsExactly(RouterSettings.PORT);
        assertThat(rules.get(1).getFrom()).containsExactly(SampleModelDeployments.namespacePeer("monitoring"));
        assertThat(rules.get(2).getPorts()).extracting(p -> p.getPort().getIntVal())
                .containsExactly(RouterPeerServiceDependent.CLUSTER_PORT, RouterPeerServiceDependent.FAILURE_DETECTION_PORT);
        assertSelects(rules.get(2).getFrom().get(0).getPodSelector(), router.getSpec().getTemplate().getMetadata().getLabels());
        // Every port a router container listens on is opened by some rule: an isolated router that cannot
        // reach its peers would split its cluster.
        assertThat(router.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts())
                .allSatisfy(p -> assertThat(rules).anySatisfy(r -> assertThat(r.getPorts())
                        .anySatisfy(port -> assertThat(port.getPort().getIntVal()).isEqualTo(p.getContainerPort()))));
    }

    @Test
    void leftOutClientsMeanTheNamespaceAndLeftOutScrapersMeanNobody() {
        ModelDeployment md = SampleModelDeployments.qwenDp4("llm");
        md.getSpec().setNetworkPolicy(new io.lmwarden.operator.model.NetworkPolicySpec());
        md.getSpec().getNetworkPolicy().setEnabled(true);
        md.getSpec().getNetworkPolicy().setMetricsScrapers(List.of()); // empty is the same as left out, never "everyone"

        NetworkPolicy router = new RouterNetworkPolicyDependent(DEFAULTS).desired(md);
        assertThat(router.getSpec().getIngress()).as("one router, no scrapers: only the client rule").singleElement()
                .satisfies(r -> assertThat(r.getFrom()).singleElement().satisfies(peer -> {
                    assertThat(peer.getPodSelector()).as("every pod of the namespace").isEqualTo(new LabelSelector());
                    assertThat(peer.getNamespaceSelector()).isNull();
                    assertThat(peer.getIpBlock()).isNull();
                }));
        NetworkPolicy replicas = new ReplicaNetworkPolicyDependent(DEFAULTS).desired(md);
        assertThat(replicas.getSpec().getIngress()).as("only the routers").hasSize(1);
    }

    @Test
    void anEmptyPeerIsAnInvalidSpecNotARejectedNetworkPolicy() {
        ModelDeployment md = SampleModelDeployments.isolated("llm");
        md.getSpec().getNetworkPolicy().setMetricsScrapers(List.of(SampleModelDeployments.namespacePeer("monitoring"),
                new io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer()));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EffectiveSpec.of(md.getSpec(), DEFAULTS))
                .hasMessage("spec.networkPolicy.metricsScrapers[1] needs a podSelector, a namespaceSelector or an ipBlock");
    }

    @Test
    void offByDefaultAndOnWhenEnabled() {
        var condition = new NetworkPolicyEnabled();
        assertThat(condition.isMet(null, SampleModelDeployments.qwenDp4("llm"), null)).isFalse();
        assertThat(condition.isMet(null, SampleModelDeployments.isolated("llm"), null)).isTrue();
        ModelDeployment off = SampleModelDeployments.isolated("llm");
        off.getSpec().getNetworkPolicy().setEnabled(false);
        assertThat(condition.isMet(null, off, null)).isFalse();
    }

    @Test
    void adminTokenComesFromTheSecretAsTheRoutersEnvironmentVariable() {
        Deployment router = new RouterDeploymentDependent(DEFAULTS).desired(SampleModelDeployments.isolated("llm"));
        var container = router.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getEnv()).filteredOn(e -> e.getName().equals("LMW_ADMIN_TOKEN")).singleElement().satisfies(e -> {
            assertThat(e.getValue()).isNull();
            assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("lmw-admin");
            assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("admin-token");
            assertThat(e.getValueFrom().getSecretKeyRef().getOptional()).as("a missing Secret keeps the pod from starting unguarded").isFalse();
        });
        var config = new RouterConfigMapDependent(DEFAULTS).desired(SampleModelDeployments.isolated("llm"));
        assertThat(config.getData().get(RouterSettings.CONFIG_FILE)).doesNotContain("adminToken").doesNotContain("lmw-admin");
        assertThat(container.getArgs()).noneMatch(a -> a.contains("admin"));

        ModelDeployment defaultKey = SampleModelDeployments.qwenDp4("llm");
        defaultKey.getSpec().getRouter().setAdminTokenSecret(new io.lmwarden.operator.model.SecretKeySpec("lmw-admin", null));
        assertThat(new RouterDeploymentDependent(DEFAULTS).desired(defaultKey).getSpec().getTemplate().getSpec().getContainers().get(0)
                .getEnv()).filteredOn(e -> e.getName().equals("LMW_ADMIN_TOKEN"))
                .singleElement().satisfies(e -> assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token"));
        assertThat(new RouterDeploymentDependent(DEFAULTS).desired(SampleModelDeployments.qwenDp4("llm")).getSpec().getTemplate()
                .getSpec().getContainers().get(0).getEnv()).noneMatch(e -> e.getName().equals("LMW_ADMIN_TOKEN"));
    }

    @Test
    void theVariableIsTheOneTheRouterReads() throws java.io.IOException {
        // The router's settings table (router/README.md, checked against RouterOption by the router's DocumentationTest).
        String routerReadme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "router", "README.md"));
        assertThat(routerReadme).contains("| `adminToken` | `--admin-token` | `" + RouterDeploymentDependent.ADMIN_TOKEN_ENV + "` |");
    }

    /** A matchLabels-only selector selects a pod when all its labels are on the pod. */
    private static void assertSelects(LabelSelector selector, Map<String, String> podLabels) {
        assertThat(selector.getMatchExpressions()).isEmpty();
        assertThat(selector.getMatchLabels()).isNotEmpty();
        assertThat(podLabels).containsAllEntriesOf(selector.getMatchLabels());
    }

    private static void assertNotSelects(LabelSelector selector, Map<String, String> podLabels) {
        assertThat(selector.getMatchLabels()).isNotEmpty();
        assertThat(podLabels.entrySet().containsAll(selector.getMatchLabels().entrySet())).as(selector + " selects " + podLabels).isFalse();
    }
}
