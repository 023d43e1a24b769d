package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.lmwarden.operator.model.ModelDeployment;

/**
 * An object only clustered routers need ({@link RouterClustered}). The operator deletes nothing it
 * owns (its role has no delete verb): after a scale-down to one router the object stays, harmless (a
 * peer Service nobody resolves, a budget that lets the single pod go), until the ModelDeployment
 * goes and the garbage collector takes it.
 */
abstract class ClusterOnlyDependent<R extends HasMetadata> extends ModelDeploymentDependent<R> {

    protected ClusterOnlyDependent(Class<R> type, OperatorDefaults defaults) {
        super(type, defaults);
    }

    @Override
    protected void handleDelete(ModelDeployment primary, R secondary, Context<ModelDeployment> context) {
        // Left to the garbage collector: see the class comment.
    }
}
