package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * StatefulSet {@code <name>-vllm}: one pod per data-parallel replica. A StatefulSet rather than a
 * Deployment because its pod names ({@code <name>-vllm-0}, ...) are stable: the router uses them
 * as replica ids, so a restarted pod keeps its pinned sessions. Pods start in parallel because
 * replicas are independent engines, not an ordered cluster. With {@code replicaLayout: dataParallelServer}
 * it has one pod, whose engine ranks the router learns from its metrics.
 *
 * <p>Update strategy {@code OnDelete}: a change of the pod template replaces no pod by itself; the operator's
 * rollout ({@code io.lmwarden.operator.rollout}) deletes outdated pods one at a time, each drained by its
 * preStop, and the StatefulSet recreates them from the new template (operator/README.md, "Rolling updates").
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class VllmStatefulSetDependent extends ModelDeploymentDependent<StatefulSet> {
    public static final String UPDATE_STRATEGY = "OnDelete";

    public VllmStatefulSetDependent() {
        this(OperatorDefaults.builtIn());
    }

    public VllmStatefulSetDependent(OperatorDefaults defaults) {
        super(StatefulSet.class, defaults);
    }

    @Override
    public StatefulSet desired(ModelDeployment md) {
        return desired(md, NodeInventory.NOT_READ);
    }

    /** With {@code kvOffload.sizeGiB: auto} the tier (and the pod's memory) follows the nodes the reconciler read. */
    @Override
    public StatefulSet desired(ModelDeployment md, NodeInventory nodes) {
        ResourceNames names = ResourceNames.of(md);
        EffectiveSpec spec = EffectiveSpec.of(md.getSpec(), defaults(), nodes);
        return new StatefulSetBuilder()
                .withMetadata(metadata(names.replicaStatefulSet(), names, Labels.REPLICA_COMPONENT))
                .withNewSpec()
                .withReplicas(spec.podCount())
                .withServiceName(names.replicaService())
                .withPodManagementPolicy("Parallel")
                // The operator replaces pods itself (ReplicaRollout): one drained replica at a time, stopping on a failing one.
                .withNewUpdateStrategy().withType(UPDATE_STRATEGY).endUpdateStrategy()
                .withNewSelector().withMatchLabels(Labels.selector(names, Labels.REPLICA_COMPONENT)).endSelector()
                .withNewTemplate()
                .withNewMetadata().withLabels(Labels.of(names, Labels.REPLICA_COMPONENT)).endMetadata()
                .withSpec(new ReplicaPodTemplate(spec, defaults(), names).podSpec())
                .endTemplate()
                .endSpec()
                .build();
    }
}
