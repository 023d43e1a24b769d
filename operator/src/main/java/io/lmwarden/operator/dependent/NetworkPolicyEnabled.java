package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * {@code spec.networkPolicy.enabled}. When it is false JOSDK deletes the NetworkPolicies (the one kind
 * the operator deletes itself): a policy left behind would keep isolating pods the user opened again.
 */
public final class NetworkPolicyEnabled implements Condition<NetworkPolicy, ModelDeployment> {

    @Override
    public boolean isMet(DependentResource<NetworkPolicy, ModelDeployment> dependent, ModelDeployment md, Context<ModelDeployment> context) {
        return EffectiveSpec.of(md.getSpec(), OperatorDefaults.builtIn()).networkPolicy().enabled();
    }
}
