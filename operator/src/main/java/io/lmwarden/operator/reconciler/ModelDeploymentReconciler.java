package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.lmwarden.operator.dependent.ReplicaServiceDependent;
import io.lmwarden.operator.dependent.RouterConfigMapDependent;
import io.lmwarden.operator.dependent.RouterDeploymentDependent;
import io.lmwarden.operator.dependent.RouterRoleBindingDependent;
import io.lmwarden.operator.dependent.RouterRoleDependent;
import io.lmwarden.operator.dependent.RouterServiceAccountDependent;
import io.lmwarden.operator.dependent.RouterClustered;
import io.lmwarden.operator.dependent.RouterDisruptionBudgetDependent;
import io.lmwarden.operator.dependent.RouterPeerServiceDependent;
import io.lmwarden.operator.dependent.RouterServiceDependent;
import io.lmwarden.operator.dependent.VllmStatefulSetDependent;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.ModelDeploymentStatus;

import java.time.Clock;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * Thin reconciler: JOSDK's managed workflow creates, updates and (through owner references)
 * garbage-collects the dependents; this class only reports status.
 */
@Workflow(dependents = {
        @Dependent(name = ModelDeploymentReconciler.REPLICA_SERVICE, type = ReplicaServiceDependent.class),
        @Dependent(name = ModelDeploymentReconciler.REPLICAS, type = VllmStatefulSetDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_SERVICE_ACCOUNT, type = RouterServiceAccountDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_ROLE, type = RouterRoleDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_ROLE_BINDING, type = RouterRoleBindingDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_CONFIG, type = RouterConfigMapDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER, type = RouterDeploymentDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_SERVICE, type = RouterServiceDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_PEERS, type = RouterPeerServiceDependent.class,
                reconcilePrecondition = RouterClustered.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_BUDGET, type = RouterDisruptionBudgetDependent.class,
                reconcilePrecondition = RouterClustered.class)
})
@ControllerConfiguration(name = ModelDeploymentReconciler.NAME)
public class ModelDeploymentReconciler implements Reconciler<ModelDeployment> {
    public static final String NAME = "modeldeployment";
    static final String REPLICA_SERVICE = "replica-service";
    static final String REPLICAS = "replica-statefulset";
    static final String ROUTER_SERVICE_ACCOUNT = "router-serviceaccount";
    static final String ROUTER_ROLE = "router-role";
    static final String ROUTER_ROLE_BINDING = "router-rolebinding";
    static final String ROUTER_CONFIG = "router-configmap";
    static final String ROUTER = "router-deployment";
    static final String ROUTER_SERVICE = "router-service";
    static final String ROUTER_PEERS = "router-peer-service";
    static final String ROUTER_BUDGET = "router-disruption-budget";

    private static final Logger LOG = Logger.getLogger(ModelDeploymentReconciler.class.getName());

    private final StatusCalculator statusCalculator = new StatusCalculator();
    private final Clock clock;

    public ModelDeploymentReconciler() {
        this(Clock.systemUTC());
    }

    public ModelDeploymentReconciler(Clock clock) {
        this.clock = clock;
    }

    @Override
    public UpdateControl<ModelDeployment> reconcile(ModelDeployment md, Context<ModelDeployment> context) {
        ModelDeploymentStatus status = statusCalculator.compute(md,
                context.getSecondaryResource(StatefulSet.class),
                context.getSecondaryResource(Deployment.class),
                clock.instant());
        if (Objects.equals(status, md.getStatus())) {
            return UpdateControl.noUpdate();
        }
        LOG.info(() -> "ModelDeployment " + md.getMetadata().getNamespace() + "/" + md.getMetadata().getName()
                + ": readyReplicas=" + status.getReadyReplicas() + " routerReady=" + status.getRouterReady()
                + " generation=" + status.getObservedGeneration());
        md.setStatus(status);
        return UpdateControl.patchStatus(md);
    }

    @Override
    public ErrorStatusUpdateControl<ModelDeployment> updateErrorStatus(ModelDeployment md, Context<ModelDeployment> context,
                                                                       Exception e) {
        LOG.warning(() -> "ModelDeployment " + md.getMetadata().getNamespace() + "/" + md.getMetadata().getName()
                + ": reconciliation failed: " + e);
        md.setStatus(statusCalculator.failed(md, e, clock.instant()));
        return ErrorStatusUpdateControl.patchStatus(md);
    }
}
