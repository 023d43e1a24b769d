package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lmwarden.operator.dependent.EffectiveSpec;
import io.lmwarden.operator.dependent.NodeCapacity;
import io.lmwarden.operator.dependent.NodeInventory;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Reads the nodes' allocatable memory and GPUs for {@code kvOffload.sizeGiB: auto}. Needs {@code get}/{@code list} on
 * nodes (the chart's ClusterRole); without them, or when the API server fails, it says why and the sizing falls back
 * rather than the reconciliation failing.
 */
final class NodeInventoryReader {
    private static final Logger LOG = Logger.getLogger(NodeInventoryReader.class.getName());
    private static final BigDecimal MIB = BigDecimal.valueOf(1L << 20);

    NodeInventory read(KubernetesClient client) {
        try {
            return NodeInventory.of(client.nodes().list().getItems().stream().map(NodeInventoryReader::capacity).toList());
        } catch (KubernetesClientException e) {
            String why = e.getCode() == 403 ? "the operator may not list nodes (RBAC: get/list on nodes)"
                    : "listing nodes failed: " + (e.getCode() > 0 ? "HTTP " + e.getCode() : e.getMessage());
            LOG.warning(() -> "kvOffload.sizeGiB auto falls back: " + why);
            return NodeInventory.unreadable(why);
        }
    }

    static NodeCapacity capacity(Node node) {
        Map<String, Quantity> allocatable = Optional.ofNullable(node.getStatus()).map(s -> s.getAllocatable()).orElse(Map.of());
        long memoryMiB = Optional.ofNullable(allocatable.get("memory"))
                .map(q -> Quantity.getAmountInBytes(q).divide(MIB, 0, RoundingMode.FLOOR).longValue()).orElse(0L);
        int gpus = Optional.ofNullable(allocatable.get(EffectiveSpec.GPU_RESOURCE))
                .map(q -> Quantity.getAmountInBytes(q).intValue()).orElse(0);
        Map<String, String> labels = Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of());
        return new NodeCapacity(node.getMetadata().getName(), labels, memoryMiB, gpus,
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable()));
    }

}
