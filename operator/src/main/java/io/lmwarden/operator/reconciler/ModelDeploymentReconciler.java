package io.lmwarden.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.lmwarden.operator.dependent.EffectiveSpec;
import io.lmwarden.operator.dependent.Labels;
import io.lmwarden.operator.dependent.NetworkPolicyEnabled;
import io.lmwarden.operator.dependent.NodeInventory;
import io.lmwarden.operator.dependent.ReplicaNetworkPolicyDependent;
import io.lmwarden.operator.dependent.RouterNetworkPolicyDependent;
import io.lmwarden.operator.dependent.OperatorDefaults;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Thin reconciler: it checks the spec first (an invalid one is reported as Degraded=True InvalidSpec
 * with a Warning event, and nothing is created or changed), then runs JOSDK's managed workflow, which
 * creates and updates the dependents in dependsOn order (owner references garbage-collect them), then
 * moves the rolling update of the replica pods on ({@link ReplicaRollout}), then reports status, with an
 * Event for every condition that changed.
 */
@Workflow(explicitInvocation = true, dependents = {
        @Dependent(name = ModelDeploymentReconciler.REPLICA_SERVICE, type = ReplicaServiceDependent.class),
        // The headless Service names the pods' DNS, so it comes before the StatefulSet.
        @Dependent(name = ModelDeploymentReconciler.REPLICAS, type = VllmStatefulSetDependent.class,
                dependsOn = ModelDeploymentReconciler.REPLICA_SERVICE),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_SERVICE_ACCOUNT, type = RouterServiceAccountDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_ROLE, type = RouterRoleDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_ROLE_BINDING, type = RouterRoleBindingDependent.class,
                dependsOn = {ModelDeploymentReconciler.ROUTER_ROLE, ModelDeploymentReconciler.ROUTER_SERVICE_ACCOUNT}),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_CONFIG, type = RouterConfigMapDependent.class),
        // A router pod that starts before its RBAC and config fails its EndpointSlice watch or its mount.
        @Dependent(name = ModelDeploymentReconciler.ROUTER, type = RouterDeploymentDependent.class,
                dependsOn = {ModelDeploymentReconciler.ROUTER_ROLE_BINDING, ModelDeploymentReconciler.ROUTER_CONFIG}),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_SERVICE, type = RouterServiceDependent.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_PEERS, type = RouterPeerServiceDependent.class,
                reconcilePrecondition = RouterClustered.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_DISRUPTION_BUDGET, type = RouterDisruptionBudgetDependent.class),
        @Dependent(name = ModelDeploymentReconciler.REPLICA_NETWORK_POLICY, type = ReplicaNetworkPolicyDependent.class,
                reconcilePrecondition = NetworkPolicyEnabled.class),
        @Dependent(name = ModelDeploymentReconciler.ROUTER_NETWORK_POLICY, type = RouterNetworkPolicyDependent.class,
                reconcilePrecondition = NetworkPolicyEnabled.class)
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
    static final String ROUTER_DISRUPTION_BUDGET = "router-pdb";
    static final String ROUTER_PEERS = "router-peer-service";
    static final String REPLICA_NETWORK_POLICY = "replica-networkpolicy";
    static final String ROUTER_NETWORK_POLICY = "router-networkpolicy";
    static final String REPLICA_PODS = "replica-pods";

    private static final Logger LOG = Logger.getLogger(ModelDeploymentReconciler.class.getName());

    private final StatusCalculator statusCalculator = new StatusCalculator();
    private final ReplicaRollout rollout = new ReplicaRollout();
    private final Clock clock;
    private final OperatorDefaults defaults;
    private final ImageAllowList allowedImages;
    private final NodeInventoryReader nodeReader = new NodeInventoryReader();

    public ModelDeploymentReconciler(OperatorDefaults defaults, ImageAllowList allowedImages) {
        this(Clock.systemUTC(), defaults, allowedImages);
    }

    public ModelDeploymentReconciler(Clock clock, OperatorDefaults defaults, ImageAllowList allowedImages) {
        this.clock = clock;
        this.defaults = defaults;
        this.allowedImages = allowedImages;
    }

    /** The replica pods, so that a pod turning Ready (or going) moves the rolling update on. They belong to the
     *  StatefulSet, not to the ModelDeployment; its name is on every one of them as a label. */
    @Override
    public List<EventSource<?, ModelDeployment>> prepareEventSources(EventSourceContext<ModelDeployment> context) {
        var pods = InformerEventSourceConfiguration.from(Pod.class, ModelDeployment.class)
                .withName(REPLICA_PODS)
                .withLabelSelector(Labels.MANAGED_BY_SELECTOR + "," + Labels.COMPONENT + "=" + Labels.REPLICA_COMPONENT)
                .withSecondaryToPrimaryMapper(pod -> Optional.ofNullable(pod.getMetadata().getLabels())
                        .map(labels -> labels.get(Labels.MODEL_DEPLOYMENT))
                        .map(name -> Set.of(new ResourceID(name, pod.getMetadata().getNamespace())))
                        .orElse(Set.of()))
                .build();
        return List.of(new InformerEventSource<>(pods, context));
    }

    @Override
    public UpdateControl<ModelDeployment> reconcile(ModelDeployment md, Context<ModelDeployment> context) {
        ModelDeploymentStatus previous = md.getStatus();
        Instant now = clock.instant();
        Optional<String> problem;
        EffectiveSpec spec = null;
        NodeInventory nodes = EffectiveSpec.sizesTierFromNodes(md.getSpec()) ? nodeReader.read(context.getClient()) : NodeInventory.NOT_READ;
        try {
            spec = EffectiveSpec.of(md.getSpec(), defaults, nodes);
            problem = allowedImages.rejection(spec, defaults);
        } catch (IllegalArgumentException e) {
            problem = Optional.of(e.getMessage());
        }
        ModelDeploymentStatus status;
        Optional<Duration> recheck = Optional.empty();
        if (problem.isPresent()) {
            status = statusCalculator.invalid(md, problem.get(), now);
        } else {
            // The StatefulSet's desired state sizes an auto tier from the same nodes this check saw.
            context.managedWorkflowAndDependentResourceContext().put(NodeInventory.CONTEXT_KEY, nodes);
            context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow().throwAggregateExceptionIfErrorsPresent();
            Optional<StatefulSet> replicas = context.getSecondaryResource(StatefulSet.class);
            RolloutStep step = rollout.advance(context.getClient(), md, spec, replicas, context.getSecondaryResources(Pod.class),
                    StatusCalculator.rollingUpdateUnderWay(previous), now);
            recheck = step.recheckAfter();
            status = statusCalculator.compute(md, replicas, context.getSecondaryResource(Deployment.class), step, now);
            status.setHostKvTier(spec.kvOffload().map(EffectiveSpec.KvOffload::sizing).orElse(null));
        }
        if (Objects.equals(status, previous)) {
            return reschedule(UpdateControl.noUpdate(), recheck);
        }
        Optional<String> invalid = problem;
        LOG.info(() -> "ModelDeployment " + md.getMetadata().getNamespace() + "/" + md.getMetadata().getName()
                + ": ready=" + status.getReady() + " routerReady=" + status.getRouterReady()
                + " generation=" + status.getObservedGeneration() + invalid.map(p -> " invalid spec: " + p).orElse(""));
        ModelDeploymentEvents.record(context.getClient(), md, ModelDeploymentEvents.transitions(previous, status), now);
        writeStatus(md, status, context);
        return reschedule(UpdateControl.noUpdate(), recheck);
    }

    /**
     * Replaces the whole status, with the resourceVersion the status was computed from, and keeps the answer in the
     * controller's cache. Not {@code UpdateControl.patchStatus}: without server-side apply JOSDK sends a JSON Patch of
     * the difference between the cached resource and the new one, and the cache can lag behind this operator's own
     * previous write. The difference is then taken from the wrong base and applied to the right one, and the server
     * keeps a status nobody computed (seen: "3/4 replicas ready, Degraded" written from a late StatefulSet read and
     * never corrected, since the next status equalled the stale cache's and no event reconciles a status change).
     * A conflict (the status changed since it was read) re-reads the resource and writes again.
     */
    private static void writeStatus(ModelDeployment md, ModelDeploymentStatus status, Context<ModelDeployment> context) {
        PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(md, context, current -> {
            current.setStatus(status);
            return current;
        });
    }

    private static UpdateControl<ModelDeployment> reschedule(UpdateControl<ModelDeployment> control, Optional<Duration> after) {
        return after.map(control::rescheduleAfter).orElse(control);
    }

    @Override
    public ErrorStatusUpdateControl<ModelDeployment> updateErrorStatus(ModelDeployment md, Context<ModelDeployment> context,
                                                                       Exception e) {
        LOG.warning(() -> "ModelDeployment " + md.getMetadata().getNamespace() + "/" + md.getMetadata().getName()
                + ": reconciliation failed: " + e);
        ModelDeploymentStatus previous = md.getStatus();
        ModelDeploymentStatus failed = statusCalculator.failed(md, e, clock.instant());
        ModelDeploymentEvents.record(context.getClient(), md, ModelDeploymentEvents.transitions(previous, failed), clock.instant());
        writeStatus(md, failed, context);
        return ErrorStatusUpdateControl.noStatusUpdate();
    }
}
