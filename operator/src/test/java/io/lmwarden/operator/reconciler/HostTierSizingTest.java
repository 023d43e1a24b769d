package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.javaoperatorsdk.operator.Operator;
import io.lmwarden.operator.SampleModelDeployments;
import io.lmwarden.operator.model.KvOffloadSpec;
import io.lmwarden.operator.model.ModelDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kvOffload.sizeGiB: auto} as the shipped operator does it on fabric8's CRUD mock API server: the tier from the
 * allocatable memory per GPU of the smallest node the replica pods can be scheduled on, the pod's memory holding it, and
 * the fallback (said in {@code status.hostKvTier}) when no node matches or the operator may not list nodes.
 */
@EnableKubernetesMockClient(https = false, crud = true, kubernetesClientBuilderCustomizer = PatientMockClient.class)
class HostTierSizingTest {
    private static final String NS = "agents";
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Map<String, String> GPU_NODE = Map.of("nvidia.com/gpu.present", "true");

    KubernetesClient client;
    KubernetesMockServer server;
    private Operator operator;

    @AfterEach
    void stopOperator() {
        if (operator != null) {
            operator.stop();
        }
    }

    @Test
    void theTierComesFromTheNodesAllocatableMemoryPerGpu() throws IOException {
        // 8 GPUs, 1000 GiB allocatable: 125 GiB per GPU, 10 % headroom -> 112.5, less vLLM's 16 GiB -> 96.5 -> 96 GiB.
        node("gpu-a", GPU_NODE, "1000Gi", 8);
        node("cpu-only", Map.of(), "2000Gi", 0);
        start();
        client.resource(withAutoTier()).create();

        Container vllm = awaitVllm();
        assertThat(vllm.getArgs()).containsSubsequence("--kv-offloading-size", "96", "--kv-offloading-backend", "native");
        assertThat(vllm.getResources().getRequests()).as("vLLM's 16Gi + the 96 GiB tier").containsEntry("memory", new Quantity((16 + 96) * 1024 + "Mi"));
        assertThat(vllm.getResources().getLimits()).containsEntry("memory", new Quantity((16 + 96) * 1024 + "Mi"));
        Eventually.await("status says how", TIMEOUT, () -> hostKvTier() != null);
        assertThat(hostKvTier()).contains("auto: 96 GiB per engine", "gpu-a", "1 eligible node").doesNotContain("fallback");
    }

    @Test
    void onNodesOfDifferentSizesTheSmallestEligibleOneDecides() throws IOException {
        node("big", GPU_NODE, "2000Gi", 8);   // 250 GiB per GPU -> 209 GiB
        node("small", GPU_NODE, "512Gi", 8);  // 64 GiB per GPU -> 57.6 - 16 -> 41 GiB
        node("tiny-but-cordoned", GPU_NODE, "64Gi", 8, true);
        node("other-pool", Map.of("nvidia.com/gpu.present", "false"), "128Gi", 8);
        start();
        client.resource(withAutoTier()).create();

        assertThat(awaitVllm().getArgs()).containsSubsequence("--kv-offloading-size", "41");
        Eventually.await("status says how", TIMEOUT, () -> hostKvTier() != null);
        assertThat(hostKvTier()).contains("41 GiB per engine", "smallest of 2 eligible nodes", "small (512 GiB allocatable / 8 GPUs");
    }

    @Test
    void withoutAMatchingNodeTheFallbackIsUsedAndSaid() throws IOException {
        node("cpu-only", Map.of(), "2000Gi", 0);
        start();
        client.resource(withAutoTier()).create();

        assertThat(awaitVllm().getArgs()).as("2 x 24 GiB per GPU").containsSubsequence("--kv-offloading-size", "48");
        Eventually.await("status says the fallback", TIMEOUT, () -> hostKvTier() != null);
        assertThat(hostKvTier()).contains("48 GiB per engine, the fallback", "no schedulable node matches");
    }

    @Test
    void whenTheOperatorMayNotListNodesTheFallbackIsUsedAndSaid() throws IOException {
        node("gpu-a", GPU_NODE, "1000Gi", 8);
        server.expect().get().withPath("/api/v1/nodes").andReturn(403, new io.fabric8.kubernetes.api.model.StatusBuilder()
                .withCode(403).withReason("Forbidden").withMessage("nodes is forbidden").build()).always();
        start();
        client.resource(withAutoTier()).create();

        assertThat(awaitVllm().getArgs()).containsSubsequence("--kv-offloading-size", "48");
        Eventually.await("status says the fallback", TIMEOUT, () -> hostKvTier() != null);
        assertThat(hostKvTier()).contains("the fallback", "may not list nodes", "grant the operator get/list on nodes");
        assertThat(new MockCluster(client, NS).conditionStatus("qwen3-4b", "Degraded")).as("not a failure").isNotEqualTo("True");
    }

    private void start() throws IOException {
        operator = new MockCluster(client, NS).startOperator();
    }

    private static ModelDeployment withAutoTier() {
        ModelDeployment md = SampleModelDeployments.qwenDp4(NS);
        md.getSpec().setKvOffload(KvOffloadSpec.auto(null));
        return md;
    }

    private void node(String name, Map<String, String> labels, String memory, int gpus) {
        node(name, labels, memory, gpus, false);
    }

    private void node(String name, Map<String, String> labels, String memory, int gpus, boolean cordoned) {
        Node node = new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withUnschedulable(cordoned).endSpec()
                .withNewStatus().addToAllocatable("memory", new Quantity(memory)).addToAllocatable("cpu", new Quantity("64"))
                .addToAllocatable("nvidia.com/gpu", new Quantity(Integer.toString(gpus))).endStatus()
                .build();
        client.nodes().resource(node).create();
    }

    private Container awaitVllm() {
        Eventually.await("replica StatefulSet", TIMEOUT, () -> client.apps().statefulSets().inNamespace(NS).withName("qwen3-4b-vllm").get() != null);
        StatefulSet sts = client.apps().statefulSets().inNamespace(NS).withName("qwen3-4b-vllm").get();
        return sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private String hostKvTier() {
        ModelDeployment md = client.resources(ModelDeployment.class).inNamespace(NS).withName("qwen3-4b").get();
        return md == null || md.getStatus() == null ? null : md.getStatus().getHostKvTier();
    }
}
