package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * More than one router pod: they form a cluster and need a peer Service and a disruption budget.
 * With one router the condition is false and they are not made (see {@link ClusterOnlyDependent}).
 */
public final class RouterClustered implements Condition<HasMetadata, ModelDeployment> {

    @Override
    public boolean isMet(DependentResource<HasMetadata, ModelDeployment> dependent, ModelDeployment md, Context<ModelDeployment> context) {
        return clustered(EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn()));
    }

    public static boolean clustered(EffectiveSpec spec) {
        return spec.router().replicas() > 1;
    }
}
