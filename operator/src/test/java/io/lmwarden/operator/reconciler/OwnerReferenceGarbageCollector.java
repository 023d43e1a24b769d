package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Stands in for kube-controller-manager's garbage collector, which fabric8's mock API server lacks:
 * deletes objects whose controller owner no longer exists. It follows owner references and nothing
 * else, so a cleanup test passes only if the operator set them right.
 */
final class OwnerReferenceGarbageCollector {
    private final KubernetesClient client;

    OwnerReferenceGarbageCollector(KubernetesClient client) {
        this.client = client;
    }

    /** Objects of the kinds a ModelDeployment owns, in one namespace. */
    List<HasMetadata> ownedKinds(String namespace) {
        List<HasMetadata> all = new ArrayList<>();
        all.addAll(client.apps().statefulSets().inNamespace(namespace).list().getItems());
        all.addAll(client.apps().deployments().inNamespace(namespace).list().getItems());
        all.addAll(client.services().inNamespace(namespace).list().getItems());
        all.addAll(client.configMaps().inNamespace(namespace).list().getItems());
        all.addAll(client.serviceAccounts().inNamespace(namespace).list().getItems());
        all.addAll(client.rbac().roles().inNamespace(namespace).list().getItems());
        all.addAll(client.rbac().roleBindings().inNamespace(namespace).list().getItems());
        all.addAll(client.policy().v1().podDisruptionBudget().inNamespace(namespace).list().getItems());
        all.addAll(client.network().v1().networkPolicies().inNamespace(namespace).list().getItems());
        return all;
    }

    /** Deletes orphans and returns how many it deleted. */
    int collect(String namespace, Set<String> liveOwnerUids) {
        int deleted = 0;
        for (HasMetadata object : ownedKinds(namespace)) {
            Set<String> owners = object.getMetadata().getOwnerReferences().stream()
                    .filter(ref -> Boolean.TRUE.equals(ref.getController()))
                    .map(OwnerReference::getUid)
                    .collect(Collectors.toSet());
            if (!owners.isEmpty() && owners.stream().noneMatch(liveOwnerUids::contains)) {
                client.resource(object).delete();
                deleted++;
            }
        }
        return deleted;
    }
}
