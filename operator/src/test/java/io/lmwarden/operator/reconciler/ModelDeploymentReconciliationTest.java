package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.javaoperatorsdk.operator.Operator;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.runtime.LmWardenOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator as it ships ({@link LmWardenOperator#create}) against fabric8's CRUD mock API server,
 * with the CRD the build generated installed first.
 */
@EnableKubernetesMockClient(https = false, crud = true, kubernetesClientBuilderCustomizer = PatientMockClient.class)
class ModelDeploymentReconciliationTest {
    private static final String NS = "agents";
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String ROUTER_IMAGE = MockCluster.ROUTER_IMAGE;

    KubernetesClient client;
    KubernetesMockServer server;
    private MockCluster cluster;
    private Operator operator;

    @BeforeEach
    void startOperator() throws IOException {
        cluster = new MockCluster(client, NS);
        operator = cluster.startOperator();
    }

    @AfterEach
    void stopOperator() {
        operator.stop();
    }

    @Test
    void createMakesEveryObjectOwnedByTheModelDeployment() {
        ModelDeployment md = client.resource(SampleModelDeployments.qwenDp4(NS)).create();

        awaitObjects(md, 9);
        for (HasMetadata object : objectsOf(md)) {
            assertThat(object.getMetadata().getOwnerReferences()).as(object.getKind() + " owner").singleElement().satisfies(ref -> {
                assertThat(ref.getKind()).isEqualTo("ModelDeployment");
                assertThat(ref.getApiVersion()).isEqualTo("lmwarden.io/v1alpha1");
                assertThat(ref.getName()).isEqualTo("qwen3-4b");
                assertThat(ref.getUid()).isEqualTo(md.getMetadata().getUid());
                assertThat(ref.getController()).isTrue();
            });
        }
        StatefulSet sts = client.apps().statefulSets().inNamespace(NS).withName("qwen3-4b-vllm").get();
        assertThat(sts.getSpec().getReplicas()).isEqualTo(4);
        assertThat(sts.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getLimits())
                .containsKey("nvidia.com/gpu");
        assertThat(client.services().inNamespace(NS).withName("qwen3-4b-replicas").get().getSpec().getClusterIP()).isEqualTo("None");
        assertThat(client.services().inNamespace(NS).withName("qwen3-4b").get().getSpec().getType()).isEqualTo("ClusterIP");
        Deployment router = client.apps().deployments().inNamespace(NS).withName("qwen3-4b-router").get();
        assertThat(router.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).isEqualTo(ROUTER_IMAGE);
        assertThat(client.configMaps().inNamespace(NS).withName("qwen3-4b-router").get().getData()).containsKey("router.yaml");
        assertThat(client.rbac().roles().inNamespace(NS).withName("qwen3-4b-router").get()).isNotNull();
        assertThat(client.rbac().roleBindings().inNamespace(NS).withName("qwen3-4b-router").get()).isNotNull();
        assertThat(client.serviceAccounts().inNamespace(NS).withName("qwen3-4b-router").get()).isNotNull();

        Eventually.await("status with endpoint and conditions", TIMEOUT, () -> {
            ModelDeployment current = get("qwen3-4b");
            return current.getStatus() != null && "http://qwen3-4b.agents.svc".equals(current.getStatus().getEndpoint())
                    && current.getStatus().getConditions().size() == 3;
        });
        ModelDeployment current = get("qwen3-4b");
        assertThat(current.getStatus().getReadyReplicas()).isZero();
        assertThat(condition(current, "Ready")).isEqualTo("False");
        assertThat(condition(current, "Progressing")).isEqualTo("True");
        assertThat(current.getMetadata().getFinalizers()).as("cleanup relies on owner references, not a finalizer").isEmpty();
    }

    @Test
    void changingDataParallelSizeScalesTheStatefulSet() {
        client.resource(SampleModelDeployments.qwenDp4(NS)).create();
        Eventually.await("StatefulSet with 4 replicas", TIMEOUT, () -> replicasOf("qwen3-4b-vllm") == 4);

        patchSpec("qwen3-4b", "{\"spec\":{\"dataParallelSize\":2}}");

        Eventually.await("StatefulSet scaled to 2", TIMEOUT, () -> replicasOf("qwen3-4b-vllm") == 2);
        Eventually.await("status observes generation 2", TIMEOUT, () -> get("qwen3-4b").getStatus() != null
                && Long.valueOf(2L).equals(get("qwen3-4b").getStatus().getObservedGeneration()));
    }

    @Test
    void changingRouterSettingsUpdatesConfigMapAndRollsTheRouter() {
        client.resource(SampleModelDeployments.qwenDp4(NS)).create();
        Eventually.await("router Deployment", TIMEOUT, () -> router() != null);
        String hashBefore = router().getSpec().getTemplate().getMetadata().getAnnotations().get("lmwarden.io/router-config-hash");

        patchSpec("qwen3-4b", "{\"spec\":{\"router\":{\"policy\":\"round-robin\"}}}");

        Eventually.await("router args updated", TIMEOUT, () -> router().getSpec().getTemplate().getSpec().getContainers().get(0)
                .getArgs().contains("round-robin"));
        assertThat(client.configMaps().inNamespace(NS).withName("qwen3-4b-router").get().getData().get("router.yaml"))
                .contains("policy: \"round-robin\"");
        assertThat(router().getSpec().getTemplate().getMetadata().getAnnotations().get("lmwarden.io/router-config-hash"))
                .isNotEqualTo(hashBefore);
    }

    @Test
    void theTenantSecretReachesEveryRouterPodFromItsSecretAndFollowsTheSpec() {
        client.resource(SampleModelDeployments.qwenDp4(NS)).create();
        Eventually.await("router Deployment", TIMEOUT, () -> router() != null);
        assertThat(router().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .noneMatch(e -> e.getName().equals("LMW_TENANT_SECRET"));

        patchSpec("qwen3-4b", "{\"spec\":{\"router\":{\"replicas\":2,\"tenantSecret\":{\"name\":\"lmw-tenants\",\"key\":\"salt\"}}}}");

        Eventually.await("LMW_TENANT_SECRET from the Secret", TIMEOUT, () -> router().getSpec().getTemplate().getSpec().getContainers()
                .get(0).getEnv().stream().anyMatch(e -> e.getName().equals("LMW_TENANT_SECRET") && e.getValueFrom() != null
                        && "lmw-tenants".equals(e.getValueFrom().getSecretKeyRef().getName())
                        && "salt".equals(e.getValueFrom().getSecretKeyRef().getKey())));
        assertThat(router().getSpec().getReplicas()).as("every router pod gets it: one pod template").isEqualTo(2);
        assertThat(client.configMaps().inNamespace(NS).withName("qwen3-4b-router").get().getData().get("router.yaml"))
                .doesNotContain("lmw-tenants");

        patchSpec("qwen3-4b", "{\"spec\":{\"router\":{\"tenantSecret\":{\"key\":\"other\"}}}}");
        Eventually.await("the new key", TIMEOUT, () -> router().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()
                .stream().anyMatch(e -> e.getName().equals("LMW_TENANT_SECRET") && "other".equals(e.getValueFrom().getSecretKeyRef().getKey())));
    }

    @Test
    void statusFollowsTheStatefulSetAndRouterBecomingReady() {
        client.resource(SampleModelDeployments.qwenDp4(NS)).create();
        Eventually.await("StatefulSet and router", TIMEOUT, () -> replicasOf("qwen3-4b-vllm") == 4 && router() != null);

        StatefulSet sts = client.apps().statefulSets().inNamespace(NS).withName("qwen3-4b-vllm").get();
        sts.setStatus(new StatefulSetStatusBuilder().withObservedGeneration(sts.getMetadata().getGeneration())
                .withReplicas(4).withUpdatedReplicas(4).withReadyReplicas(4).withAvailableReplicas(4)
                .withCurrentRevision("rev-1").withUpdateRevision("rev-1").build());
        client.resource(sts).updateStatus();
        Eventually.await("4 ready replicas in status", TIMEOUT, () -> get("qwen3-4b").getStatus() != null
                && Integer.valueOf(4).equals(get("qwen3-4b").getStatus().getReadyReplicas()));
        assertThat(condition(get("qwen3-4b"), "Ready")).as("router not ready yet").isEqualTo("False");

        Deployment router = router();
        router.setStatus(new DeploymentStatusBuilder().withObservedGeneration(router.getMetadata().getGeneration())
                .withReplicas(1).withUpdatedReplicas(1).withReadyReplicas(1).withAvailableReplicas(1).build());
        client.resource(router).updateStatus();

        Eventually.await("Ready=True", TIMEOUT, () -> "True".equals(condition(get("qwen3-4b"), "Ready")));
        ModelDeployment md = get("qwen3-4b");
        assertThat(md.getStatus().getRouterReady()).isTrue();
        assertThat(md.getStatus().getReady()).as("the READY column").isEqualTo("4/4");
        assertThat(condition(md, "Progressing")).isEqualTo("False");
        assertThat(condition(md, "Degraded")).isEqualTo("False");
        // kubectl describe md: what happened, as Events on the ModelDeployment.
        Eventually.await("events", TIMEOUT, () -> eventsOf("qwen3-4b").stream().anyMatch(e -> e.getReason().equals("AllReplicasReady")));
        List<io.fabric8.kubernetes.api.model.Event> events = eventsOf("qwen3-4b");
        assertThat(events).extracting(io.fabric8.kubernetes.api.model.Event::getReason)
                .contains("ReplicasNotReady", "RouterNotReady", "AllReplicasReady", "RolloutComplete");
        assertThat(events).allSatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(md.getMetadata().getUid());
            assertThat(e.getSource().getComponent()).isEqualTo("lm-warden-operator");
        });
    }

    private List<io.fabric8.kubernetes.api.model.Event> eventsOf(String name) {
        return cluster.eventsOf(name);
    }

    @Test
    void anInvalidSpecIsReportedAsDegraded() {
        ModelDeployment bad = SampleModelDeployments.qwenDp4(NS);
        bad.getSpec().getRouter().setSpillThreshold(new io.fabric8.kubernetes.api.model.IntOrString("lots"));
        client.resource(bad).create();

        Eventually.await("Degraded=True", TIMEOUT, () -> "True".equals(condition(get("qwen3-4b"), "Degraded")));
        ModelDeployment md = get("qwen3-4b");
        var degraded = md.getStatus().getConditions().stream().filter(c -> c.getType().equals("Degraded")).findFirst().orElseThrow();
        assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
        assertThat(degraded.getMessage()).contains("spillThreshold must be 'auto' or an integer");
        assertThat(objectsOf(md)).as("validated before the workflow: nothing is created for an invalid spec").isEmpty();
        Eventually.await("a Warning event", TIMEOUT, () -> eventsOf("qwen3-4b").stream().anyMatch(e -> e.getReason().equals("InvalidSpec")));
        var warning = eventsOf("qwen3-4b").stream().filter(e -> e.getReason().equals("InvalidSpec")).findFirst().orElseThrow();
        assertThat(warning.getType()).isEqualTo("Warning");
        assertThat(warning.getMessage()).contains("spillThreshold must be 'auto' or an integer");

        // Fixed, it is applied.
        patchSpec("qwen3-4b", "{\"spec\":{\"router\":{\"spillThreshold\":\"auto\"}}}");
        awaitObjects(md, 9);
        Eventually.await("Degraded=False", TIMEOUT, () -> "False".equals(condition(get("qwen3-4b"), "Degraded")));
    }

    @Test
    void networkPoliciesAreMadeWhenEnabledFollowTheSpecAndGoWhenDisabled() {
        ModelDeployment md = client.resource(SampleModelDeployments.isolated(NS)).create();
        // 9 objects + the router peer Service (2 routers) + 2 NetworkPolicies
        awaitObjects(md, 12);
        var replicas = client.network().v1().networkPolicies().inNamespace(NS).withName("qwen3-4b-replicas").get();
        var router = client.network().v1().networkPolicies().inNamespace(NS).withName("qwen3-4b-router").get();
        assertThat(replicas.getSpec().getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/component", "replica");
        assertThat(router.getSpec().getIngress().get(0).getFrom()).containsExactly(SampleModelDeployments.namespacePeer("agents"));
        assertThat(router.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(ref -> assertThat(ref.getUid()).isEqualTo(md.getMetadata().getUid()));
        // The admin token reaches the router container from its Secret.
        assertThat(router().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .filteredOn(e -> e.getName().equals("LMW_ADMIN_TOKEN"))
                .singleElement().satisfies(e -> assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("lmw-admin"));

        cluster.jsonPatch("qwen3-4b", "[{\"op\":\"replace\",\"path\":\"/spec/networkPolicy/routerClients\","
                        + "\"value\":[{\"podSelector\":{\"matchLabels\":{\"role\":\"agent\"}}}]}]");
        Eventually.await("router policy follows routerClients", TIMEOUT, () -> client.network().v1().networkPolicies().inNamespace(NS)
                .withName("qwen3-4b-router").get().getSpec().getIngress().get(0).getFrom().equals(List.of(
                        new io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder().withNewPodSelector()
                                .addToMatchLabels("role", "agent").endPodSelector().build())));

        patchSpec("qwen3-4b", "{\"spec\":{\"networkPolicy\":{\"enabled\":false}}}");
        Eventually.await("NetworkPolicies removed", TIMEOUT,
                () -> client.network().v1().networkPolicies().inNamespace(NS).list().getItems().isEmpty());
        assertThat(objectsOf(md)).as("everything else stays").hasSize(10);
    }

    @Test
    void kvEventsAndTheHostTierReachPodsServiceAndPolicyAndTurningEventsOffTakesThemAway() {
        ModelDeployment md = SampleModelDeployments.isolated(NS);
        md.getSpec().setImage("vllm/vllm-openai:v0.23.0");
        client.resource(md).create();
        awaitObjects(md, 12);

        patchSpec("qwen3-4b", "{\"spec\":{\"kvOffload\":{\"sizeGiB\":40},\"router\":{\"kvEvents\":{\"enabled\":true}}}}");
        Eventually.await("events and tier in the pod template", TIMEOUT, () -> vllmContainer().getArgs().contains("--kv-events-config")
                && vllmContainer().getArgs().contains("--kv-offloading-size"));
        var vllm = vllmContainer();
        assertThat(vllm.getArgs()).containsSubsequence("--kv-offloading-size", "40", "--kv-offloading-backend", "native")
                .containsSubsequence("--prefix-caching-hash-algo", "sha256");
        assertThat(vllm.getResources().getLimits().get("memory")).as("16Gi for vLLM itself + 40Gi of pinned host memory")
                .isEqualTo(new io.fabric8.kubernetes.api.model.Quantity((56 * 1024) + "Mi"));
        assertThat(vllm.getEnv()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("PYTHONHASHSEED"));
        assertThat(vllm.getPorts()).extracting(p -> p.getName()).containsExactly("http", "kv-events", "kv-replay");
        Eventually.await("Service ports", TIMEOUT, () -> client.services().inNamespace(NS).withName("qwen3-4b-replicas").get()
                .getSpec().getPorts().size() == 3);
        Eventually.await("the routers may reach the event ports", TIMEOUT, () -> client.network().v1().networkPolicies().inNamespace(NS)
                .withName("qwen3-4b-replicas").get().getSpec().getIngress().get(0).getPorts().size() == 3);

        patchSpec("qwen3-4b", "{\"spec\":{\"router\":{\"kvEvents\":{\"enabled\":false}}}}");
        Eventually.await("event flags and ports removed from the pod template", TIMEOUT,
                () -> !vllmContainer().getArgs().contains("--kv-events-config") && vllmContainer().getPorts().size() == 1
                        && vllmContainer().getEnv().stream().noneMatch(e -> e.getName().equals("PYTHONHASHSEED")));
        assertThat(vllmContainer().getArgs()).as("the tier stays").contains("--kv-offloading-size");
        Eventually.await("Service ports removed", TIMEOUT, () -> client.services().inNamespace(NS).withName("qwen3-4b-replicas").get()
                .getSpec().getPorts().size() == 1);
        Eventually.await("NetworkPolicy ports removed", TIMEOUT, () -> client.network().v1().networkPolicies().inNamespace(NS)
                .withName("qwen3-4b-replicas").get().getSpec().getIngress().get(0).getPorts().size() == 1);
    }

    @Test
    void loraAdaptersReachThePodTemplateAndAnAdapterNamedLikeTheModelIsRefusedUntilRenamed() {
        ModelDeployment md = client.resource(SampleModelDeployments.withLora(NS)).create();
        awaitObjects(md, 9);
        Eventually.await("LoRA flags in the pod template", TIMEOUT, () -> vllmContainer().getArgs().contains("--enable-lora"));
        assertThat(vllmContainer().getArgs()).containsSubsequence("--lora-modules", "team-coder=/lora-adapters/lora-adapters/adapters/team-coder",
                "py-coder=/lora-adapters/lora-adapters/adapters/py-coder", "sql-coder=example-org/qwen3-4b-sql-lora", "--max-loras", "2");
        assertThat(vllmContainer().getEnv()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("VLLM_ALLOW_RUNTIME_LORA_UPDATING"));
        assertThat(client.apps().statefulSets().inNamespace(NS).withName("qwen3-4b-vllm").get().getSpec().getTemplate().getSpec().getVolumes())
                .anySatisfy(v -> assertThat(v.getPersistentVolumeClaim()).isNotNull()
                        .satisfies(c -> assertThat(c.getClaimName()).isEqualTo("lora-adapters")));

        cluster.jsonPatch("qwen3-4b", "[{\"op\":\"replace\",\"path\":\"/spec/lora/adapters/2/name\",\"value\":\"Qwen/Qwen3-4B-Instruct-2507\"}]");
        Eventually.await("Degraded InvalidSpec", TIMEOUT, () -> cluster.condition("qwen3-4b", "Degraded")
                .filter(c -> "InvalidSpec".equals(c.getReason())).isPresent());
        assertThat(cluster.condition("qwen3-4b", "Degraded").orElseThrow().getMessage())
                .contains("spec.lora.adapters[2].name 'Qwen/Qwen3-4B-Instruct-2507' is the base model's served name");
        assertThat(vllmContainer().getArgs()).as("the objects stay as they were").contains("sql-coder=example-org/qwen3-4b-sql-lora");

        cluster.jsonPatch("qwen3-4b", "[{\"op\":\"replace\",\"path\":\"/spec/lora/adapters/2/name\",\"value\":\"sql\"},"
                + "{\"op\":\"replace\",\"path\":\"/spec/lora/runtimeUpdating\",\"value\":false}]");
        Eventually.await("the renamed adapter applied, runtime updating off", TIMEOUT, () -> vllmContainer().getArgs()
                .contains("sql=example-org/qwen3-4b-sql-lora")
                && vllmContainer().getEnv().stream().noneMatch(e -> e.getName().equals("VLLM_ALLOW_RUNTIME_LORA_UPDATING")));
        Eventually.await("Degraded=False", TIMEOUT, () -> "False".equals(condition(get("qwen3-4b"), "Degraded")));
    }

    private io.fabric8.kubernetes.api.model.Container vllmContainer() {
        return client.apps().statefulSets().inNamespace(NS).withName("qwen3-4b-vllm").get().getSpec().getTemplate().getSpec()
                .getContainers().get(0);
    }

    @Test
    void deletingTheModelDeploymentLeavesNothingBehind() throws InterruptedException {
        ModelDeployment md = client.resource(SampleModelDeployments.simulated(NS, 2)).create();
        ModelDeployment other = client.resource(SampleModelDeployments.qwenDp4(NS)).create();
        awaitObjects(md, 9);
        awaitObjects(other, 9);

        client.resource(md).delete();
        Eventually.await("ModelDeployment gone", TIMEOUT, () -> get("sim") == null);
        OwnerReferenceGarbageCollector gc = new OwnerReferenceGarbageCollector(client);
        int deleted = gc.collect(NS, Set.of(other.getMetadata().getUid()));

        assertThat(deleted).isEqualTo(9);
        Thread.sleep(500); // the operator must not recreate anything for a deleted ModelDeployment
        assertThat(objectsOf(md)).isEmpty();
        assertThat(objectsOf(other)).as("another ModelDeployment's objects stay").hasSize(9);
    }

    private void patchSpec(String name, String mergePatch) {
        cluster.patchSpec(name, mergePatch);
    }

    private void awaitObjects(ModelDeployment md, int count) {
        Eventually.await(count + " objects of " + md.getMetadata().getName(), TIMEOUT, () -> objectsOf(md).size() == count);
    }

    private List<HasMetadata> objectsOf(ModelDeployment md) {
        String name = md.getMetadata().getName();
        return new OwnerReferenceGarbageCollector(client).ownedKinds(NS).stream()
                .filter(o -> o.getMetadata().getName().equals(name) || o.getMetadata().getName().startsWith(name + "-"))
                .toList();
    }

    private ModelDeployment get(String name) {
        return cluster.get(name);
    }

    private Deployment router() {
        return client.apps().deployments().inNamespace(NS).withName("qwen3-4b-router").get();
    }

    private int replicasOf(String statefulSet) {
        StatefulSet sts = client.apps().statefulSets().inNamespace(NS).withName(statefulSet).get();
        return sts == null ? -1 : sts.getSpec().getReplicas();
    }

    private static String condition(ModelDeployment md, String type) {
        if (md == null || md.getStatus() == null) {
            return null;
        }
        return md.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst()
                .map(c -> c.getStatus()).orElse(null);
    }
}
