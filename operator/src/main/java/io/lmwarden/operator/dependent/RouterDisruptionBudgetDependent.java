package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * PodDisruptionBudget {@code <name>-router}, only with more than one router: a drain takes one router
 * at a time, so the others keep serving and keep every pin.
 */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterDisruptionBudgetDependent extends ClusterOnlyDependent<PodDisruptionBudget> {

    public RouterDisruptionBudgetDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterDisruptionBudgetDependent(OperatorDefaults defaults) {
        super(PodDisruptionBudget.class, defaults);
    }

    @Override
    public PodDisruptionBudget desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        return new PodDisruptionBudgetBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector().withMatchLabels(Labels.selector(names, Labels.ROUTER_COMPONENT)).endSelector()
                .endSpec()
                .build();
    }
}
