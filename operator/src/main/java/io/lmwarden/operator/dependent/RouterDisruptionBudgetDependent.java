package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * PodDisruptionBudget {@code <name>-router}: with two or more router pods a node drain keeps at least
 * one serving (agents keep reaching the model); with one it allows the drain (maxUnavailable 1), since
 * a budget that forbids evicting the only pod would block every node drain. Always present, so that
 * changing router.replicas only updates it (the operator never deletes what it made).
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterDisruptionBudgetDependent extends ModelDeploymentDependent<PodDisruptionBudget> {

    public RouterDisruptionBudgetDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterDisruptionBudgetDependent(OperatorDefaults defaults) {
        super(PodDisruptionBudget.class, defaults);
    }

    @Override
    public PodDisruptionBudget desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        boolean several = effective(md).router().replicas() > 1;
        return new PodDisruptionBudgetBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .withNewSpec()
                .withMinAvailable(several ? new IntOrString(1) : null)
                .withMaxUnavailable(several ? null : new IntOrString(1))
                .withNewSelector().withMatchLabels(Labels.selector(names, Labels.ROUTER_COMPONENT)).endSelector()
                .endSpec()
                .build();
    }
}
