package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.SecretKeySpec;

import java.time.Duration;
import java.util.Map;

/** Deployment {@code <name>-router}: the LM Warden router in front of the replicas. */
@KubernetesDependent(informer = @Informer(labelSelector = Labels.MANAGED_BY_SELECTOR))
public class RouterDeploymentDependent extends ModelDeploymentDependent<Deployment> {
    public static final String CONTAINER = "router";
    public static final String CONFIG_HASH_ANNOTATION = "lmwarden.io/router-config-hash";
    /** The router's adminToken setting as an environment variable (router/README.md, RouterOption.ADMIN_TOKEN). */
    public static final String ADMIN_TOKEN_ENV = "LMW_ADMIN_TOKEN";
    /** The router's tenantSecret setting as an environment variable (RouterOption.TENANT_SECRET). */
    public static final String TENANT_SECRET_ENV = "LMW_TENANT_SECRET";
    /** The ModelDeployment's name: the router tags every meter with it ({@code deployment}), which autoscalers query. */
    public static final String DEPLOYMENT_ENV = "LMW_DEPLOYMENT";
    /**
     * A stopping router pod keeps accepting this long before it gets SIGTERM: its endpoint is removed from the
     * Service when the pod is deleted, but kube-proxy and other routers' endpoints only learn it a few seconds later.
     */
    public static final int PRE_STOP_DELAY_SECONDS = 10;
    /** After the router's shutdownGrace: the JVM's exit and leaving the router cluster. */
    static final long EXIT_SECONDS = 10;
    static final String ROUTER_JAR = "/app/lmw-router.jar";

    public RouterDeploymentDependent() {
        this(OperatorDefaults.builtIn());
    }

    public RouterDeploymentDependent(OperatorDefaults defaults) {
        super(Deployment.class, defaults);
    }

    @Override
    public Deployment desired(ModelDeployment md) {
        ResourceNames names = ResourceNames.of(md);
        EffectiveSpec spec = effective(md);
        RouterSettings settings = new RouterSettings(spec, names);
        var container = new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(spec.router().image())
                .withImagePullPolicy(defaults().imagePullPolicy())
                .withCommand(ReplicaPodTemplate.javaCommand(ROUTER_JAR))
                .withArgs(settings.args())
                .addNewPort().withName("http").withContainerPort(RouterSettings.PORT).withProtocol("TCP").endPort()
                .withReadinessProbe(httpProbe("/readyz", 5, 3))
                .withLivenessProbe(httpProbe("/healthz", 10, 3))
                .withStartupProbe(httpProbe("/healthz", 2, 60))
                .withNewLifecycle().withNewPreStop().withNewExec().withCommand("sleep", Integer.toString(PRE_STOP_DELAY_SECONDS))
                .endExec().endPreStop().endLifecycle()
                .withResources(spec.router().resources().orElseGet(RouterDeploymentDependent::defaultResources))
                .withSecurityContext(PodHardening.containerSecurityContext())
                .withVolumeMounts(
                        new VolumeMountBuilder().withName("config").withMountPath(RouterSettings.CONFIG_DIR)
                                .withReadOnly(true).build(),
                        PodHardening.tmpMount())
                .build();
        container.getEnv().add(new EnvVarBuilder().withName(DEPLOYMENT_ENV).withValue(names.name()).build());
        // From the Secret, never from the ConfigMap or the args: both are readable by anyone who can read the pod.
        spec.router().adminTokenSecret().ifPresent(secret -> container.getEnv().add(fromSecret(ADMIN_TOKEN_ENV, secret)));
        spec.router().tenantSecret().ifPresent(secret -> container.getEnv().add(fromSecret(TENANT_SECRET_ENV, secret)));
        boolean clustered = RouterClustered.clustered(spec);
        if (clustered) {
            // Router pods form one cluster: JGroups on the pod IP, found through the peer Service.
            container.getPorts().add(new ContainerPortBuilder().withName("cluster")
                    .withContainerPort(RouterPeerServiceDependent.CLUSTER_PORT).withProtocol("TCP").build());
            container.getPorts().add(new ContainerPortBuilder().withName("cluster-fd")
                    .withContainerPort(RouterPeerServiceDependent.FAILURE_DETECTION_PORT).withProtocol("TCP").build());
            container.getEnv().add(new EnvVarBuilder().withName("LMW_CLUSTER_BIND")
                    .withNewValueFrom().withNewFieldRef().withFieldPath("status.podIP").endFieldRef().endValueFrom().build());
        }
        return new DeploymentBuilder()
                .withMetadata(metadata(names.router(), names, Labels.ROUTER_COMPONENT))
                .withNewSpec()
                .withReplicas(spec.router().replicas())
                // A new router pod is Ready before an old one stops: a rolling update never lowers the routers serving.
                .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0)).withMaxSurge(new IntOrString(1)).endRollingUpdate().endStrategy()
                .withNewSelector().withMatchLabels(Labels.selector(names, Labels.ROUTER_COMPONENT)).endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Labels.of(names, Labels.ROUTER_COMPONENT))
                .withAnnotations(Map.of(CONFIG_HASH_ANNOTATION, settings.configHash()))
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(names.router())
                // The router reads LMW_* variables; service links would inject LMW_<SERVICE>_PORT=tcp://...
                .withEnableServiceLinks(false)
                .withAutomountServiceAccountToken(true)
                .withTerminationGracePeriodSeconds(terminationGracePeriodSeconds(spec))
                .withSecurityContext(PodHardening.podSecurityContext())
                .withAffinity(clustered ? spreadOverNodes(names) : null)
                .withContainers(container)
                .withVolumes(
                        new VolumeBuilder().withName("config").withNewConfigMap().withName(names.router())
                                .endConfigMap().build(),
                        PodHardening.tmpVolume())
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** The preStop delay, then the router's shutdownGrace for open streams, then its exit: the kubelet never cuts a stream short. */
    static long terminationGracePeriodSeconds(EffectiveSpec spec) {
        Duration grace = spec.router().shutdownGraceDuration();
        long graceSeconds = grace.toSeconds() + (grace.toNanosPart() > 0 ? 1 : 0);
        return PRE_STOP_DELAY_SECONDS + graceSeconds + EXIT_SECONDS;
    }

    /** Router pods prefer different nodes: a node that goes takes one router, not the cluster. */
    private static Affinity spreadOverNodes(ResourceNames names) {
        return new AffinityBuilder().withNewPodAntiAffinity()
                .addNewPreferredDuringSchedulingIgnoredDuringExecution()
                .withWeight(100)
                .withNewPodAffinityTerm()
                .withTopologyKey("kubernetes.io/hostname")
                .withNewLabelSelector().withMatchLabels(Labels.selector(names, Labels.ROUTER_COMPONENT)).endLabelSelector()
                .endPodAffinityTerm()
                .endPreferredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity()
                .build();
    }

    static Probe httpProbe(String path, int periodSeconds, int failureThreshold) {
        return new ProbeBuilder()
                .withNewHttpGet().withPath(path).withPort(new IntOrString("http")).endHttpGet()
                .withPeriodSeconds(periodSeconds)
                .withTimeoutSeconds(2)
                .withFailureThreshold(failureThreshold)
                .build();
    }

    private static ResourceRequirements defaultResources() {
        return new ResourceRequirementsBuilder()
                .withRequests(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("256Mi")))
                .withLimits(Map.of("memory", new Quantity("1Gi")))
                .build();
    }

    /** Not optional: a missing Secret keeps the pod from starting rather than starting it without the setting. */
    private static EnvVar fromSecret(String variable, SecretKeySpec secret) {
        return new EnvVarBuilder().withName(variable)
                .withNewValueFrom().withNewSecretKeyRef(secret.getKey(), secret.getName(), false).endValueFrom()
                .build();
    }
}
