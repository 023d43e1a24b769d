package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.lmwarden.operator.model.Defaults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod of one data-parallel replica: vLLM on {@code tensorParallelSize} GPUs (or, as a data-parallel server,
 * {@code vllm serve --data-parallel-size N} on N × that many), or LM Warden's
 * simulator from the router image when the ModelDeployment asks for it. Both listen on {@link #PORT}
 * and answer {@code /health}, which the readiness probe (and so the router's EndpointSlice view) uses.
 */
public final class ReplicaPodTemplate {
    // Pods get no Docker-link style service variables (enableServiceLinks: false): a Service named
    // "vllm" or "lmw-..." would otherwise inject VLLM_PORT / LMW_* values such as tcp://10.0.0.1:80,
    // which vLLM and the LM Warden router read as their own settings.
    public static final int PORT = 8000;
    public static final String VLLM_CONTAINER = "vllm";
    public static final String SIMULATOR_CONTAINER = "simulator";
    static final String MODEL_CACHE_VOLUME = "model-cache";
    static final String SIMULATOR_JAR = "/app/lmw-sim.jar";
    /** vLLM downloads and loads weights before /health answers; allow 30 minutes. */
    static final int VLLM_STARTUP_PERIOD_SECONDS = 10;
    static final int VLLM_STARTUP_FAILURES = 180;

    /** Python's hash seed, which also seeds vLLM's block hashes (NONE_HASH): one value for all replicas. */
    public static final String HASH_SEED_ENV = "PYTHONHASHSEED";

    private final EffectiveSpec spec;
    private final OperatorDefaults defaults;
    private final ResourceNames names;

    public ReplicaPodTemplate(EffectiveSpec spec, OperatorDefaults defaults, ResourceNames names) {
        this.spec = spec;
        this.defaults = defaults;
        this.names = names;
    }

    public PodSpec podSpec() {
        return spec.simulated() ? simulatorPod() : vllmPod();
    }

    /** Arguments after {@code vllm serve}. */
    public List<String> vllmArgs() {
        List<String> args = new ArrayList<>(List.of(
                spec.model(),
                "--served-model-name", spec.servedModelName(),
                "--tensor-parallel-size", Integer.toString(spec.tensorParallelSize()),
                "--host", "0.0.0.0",
                "--port", Integer.toString(PORT),
                "--enable-prompt-tokens-details",
                "--enable-prefix-caching"));
        if (spec.dataParallelServer()) {
            args.addAll(List.of("--data-parallel-size", Integer.toString(spec.dataParallelSize())));
        }
        spec.maxNumSeqs().ifPresent(n -> args.addAll(List.of("--max-num-seqs", n.toString())));
        spec.maxModelLen().ifPresent(n -> args.addAll(List.of("--max-model-len", n.toString())));
        spec.gpuMemoryUtilization().ifPresent(u -> args.addAll(List.of("--gpu-memory-utilization", u.toString())));
        spec.kvOffload().ifPresent(o -> args.addAll(List.of("--kv-offloading-size", gib(o.sizeGiB()),
                // Always named: native is the default only since vLLM PR #32421; before it the flag was required.
                "--kv-offloading-backend", o.backend())));
        spec.router().kvEvents().ifPresent(e -> args.addAll(List.of("--kv-events-config", kvEventPorts().configJson(),
                "--prefix-caching-hash-algo", e.hashAlgorithm())));
        if (!spec.schedulingPolicy().equals(Defaults.SCHEDULING_POLICY)) {
            // Only a policy other than vLLM's own default is written, so a ModelDeployment that does not ask keeps its pod template.
            args.addAll(List.of("--scheduling-policy", spec.schedulingPolicy()));
        }
        spec.lora().ifPresent(l -> args.addAll(l.args()));
        args.addAll(spec.extraArgs());
        return List.copyOf(args);
    }

    /** Arguments after {@code java -jar /app/lmw-sim.jar}: one simulated replica per pod. */
    public List<String> simulatorArgs() {
        List<String> args = new ArrayList<>(List.of(
                "--replicas", "1",
                "--port", Integer.toString(PORT),
                "--host", "0.0.0.0",
                "--model", spec.servedModelName(),
                "--profile", spec.simulatorProfile()));
        if (spec.dataParallelServer()) {
            args.addAll(List.of("--engines", Integer.toString(spec.dataParallelSize())));
        }
        spec.maxNumSeqs().ifPresent(n -> args.addAll(List.of("--max-num-seqs", n.toString())));
        spec.kvOffload().ifPresent(o -> args.addAll(List.of("--kv-offload-gib", gib(o.sizeGiB()))));
        spec.router().kvEvents().ifPresent(e -> args.addAll(List.of("--kv-events-config", kvEventPorts().configJson())));
        // The simulator parses vLLM's LoRA flags and variable as vLLM does (sim/README.md, "LoRA adapters"); it reads no weights,
        // so its pod mounts no adapter volume and the paths only show in /v1/models.
        spec.lora().ifPresent(l -> args.addAll(l.args()));
        return List.copyOf(args);
    }

    /** Where the pod's engines publish KV events (one port pair per engine). */
    public KvEventPorts kvEventPorts() {
        return new KvEventPorts(spec.enginesPerPod());
    }

    /** The value of {@link #HASH_SEED_ENV}: stable for the ModelDeployment (so across restarts and rolling updates), a 32-bit
     *  number as Python requires. */
    public String hashSeed() {
        return Long.toString(Integer.toUnsignedLong((names.namespace() + "/" + names.name()).hashCode()));
    }

    private static String gib(double size) {
        return java.math.BigDecimal.valueOf(size).stripTrailingZeros().toPlainString();
    }

    static List<String> javaCommand(String jar) {
        return List.of("java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", jar);
    }

    private PodSpec vllmPod() {
        Container vllm = new ContainerBuilder()
                .withName(VLLM_CONTAINER)
                .withImage(spec.vllmImage())
                .withImagePullPolicy("IfNotPresent")
                .withCommand("vllm", "serve")
                .withArgs(vllmArgs())
                .withPorts(ports())
                .withEnv(vllmEnv())
                .withResources(vllmResources())
                .withLifecycle(ReplicaDrain.preStop(ReplicaDrain.vllmPreStop(PORT, spec.rollout().drainTimeout())))
                .withStartupProbe(RouterDeploymentDependent.httpProbe("/health", VLLM_STARTUP_PERIOD_SECONDS, VLLM_STARTUP_FAILURES))
                .withReadinessProbe(RouterDeploymentDependent.httpProbe("/health", 5, 3))
                .withLivenessProbe(livenessProbe())
                .withSecurityContext(PodHardening.vllmContainerSecurityContext())
                .withVolumeMounts(
                        new VolumeMountBuilder().withName("dshm").withMountPath("/dev/shm").build(),
                        new VolumeMountBuilder().withName(MODEL_CACHE_VOLUME).withMountPath(spec.modelCacheMountPath()).build())
                .addAllToVolumeMounts(loraVolumes().mounts())
                .build();
        return new PodSpecBuilder()
                .withEnableServiceLinks(false)
                // vLLM and the simulator never call the API server: no token of the namespace's default ServiceAccount.
                .withAutomountServiceAccountToken(false)
                .withContainers(vllm)
                .withSecurityContext(PodHardening.vllmPodSecurityContext())
                .withNodeSelector(spec.nodeSelector())
                .withTolerations(spec.tolerations())
                .withTerminationGracePeriodSeconds(ReplicaDrain.gracePeriodSeconds(spec.rollout().drainTimeout(), ReplicaDrain.VLLM_SHUTDOWN_SECONDS))
                .withVolumes(
                        // NCCL and PyTorch workers share tensors through /dev/shm; the container default of 64 MiB is too small.
                        new VolumeBuilder().withName("dshm").withNewEmptyDir().withMedium("Memory").endEmptyDir().build(),
                        modelCacheVolume())
                .addAllToVolumes(loraVolumes().volumes())
                .build();
    }

    private PodSpec simulatorPod() {
        Container simulator = new ContainerBuilder()
                .withName(SIMULATOR_CONTAINER)
                .withImage(spec.router().image())
                .withImagePullPolicy(defaults.imagePullPolicy())
                .withCommand(javaCommand(SIMULATOR_JAR))
                .withArgs(simulatorArgs())
                .withPorts(ports())
                .withEnv(engineEnv())
                .withLifecycle(ReplicaDrain.preStop(ReplicaDrain.simulatorPreStop(SIMULATOR_JAR, PORT, spec.rollout().drainTimeout())))
                .withResources(spec.resources().orElseGet(ReplicaPodTemplate::simulatorResources))
                .withStartupProbe(RouterDeploymentDependent.httpProbe("/health", 2, 60))
                .withReadinessProbe(RouterDeploymentDependent.httpProbe("/health", 2, 3))
                .withLivenessProbe(livenessProbe())
                .withSecurityContext(PodHardening.containerSecurityContext())
                .withVolumeMounts(PodHardening.tmpMount())
                .build();
        return new PodSpecBuilder()
                .withEnableServiceLinks(false)
                // vLLM and the simulator never call the API server: no token of the namespace's default ServiceAccount.
                .withAutomountServiceAccountToken(false)
                .withContainers(simulator)
                .withNodeSelector(spec.nodeSelector())
                .withTolerations(spec.tolerations())
                .withSecurityContext(PodHardening.podSecurityContext())
                .withTerminationGracePeriodSeconds(ReplicaDrain.gracePeriodSeconds(spec.rollout().drainTimeout(),
                        ReplicaDrain.SIMULATOR_SHUTDOWN_SECONDS))
                .withVolumes(PodHardening.tmpVolume())
                .build();
    }

    private static io.fabric8.kubernetes.api.model.Probe livenessProbe() {
        var probe = RouterDeploymentDependent.httpProbe("/health", 15, 4);
        probe.setTimeoutSeconds(5);
        return probe;
    }

    private List<ContainerPort> ports() {
        List<ContainerPort> ports = new ArrayList<>();
        ports.add(new ContainerPortBuilder().withName("http").withContainerPort(PORT).withProtocol("TCP").build());
        if (spec.router().kvEvents().isPresent()) {
            ports.addAll(kvEventPorts().containerPorts());
        }
        return ports;
    }

    private List<EnvVar> vllmEnv() {
        List<EnvVar> env = new ArrayList<>();
        spec.hfTokenSecret().ifPresent(secret -> env.add(new EnvVarBuilder()
                .withName("HF_TOKEN")
                .withNewValueFrom().withNewSecretKeyRef(secret.getKey(), secret.getName(), false).endValueFrom()
                .build()));
        boolean userSeed = spec.env().stream().anyMatch(e -> HASH_SEED_ENV.equals(e.getName()));
        if (spec.router().kvEvents().isPresent() && !userSeed) {
            // Every replica must hash a prefix to the same block hashes, and keep doing so after a restart.
            env.add(new EnvVarBuilder().withName(HASH_SEED_ENV).withValue(hashSeed()).build());
        }
        env.addAll(engineEnv());
        return env;
    }

    /** What vLLM and the simulator both read: the variables of spec fields, then the user's. */
    private List<EnvVar> engineEnv() {
        List<EnvVar> env = new ArrayList<>();
        spec.lora().ifPresent(l -> env.addAll(l.env()));
        env.addAll(spec.env());
        return env;
    }

    private LoraVolumes loraVolumes() {
        return new LoraVolumes(spec.lora(), spec.modelCacheClaim());
    }

    /**
     * The user's resources with the GPU count forced to the pod's GPUs (tensorParallelSize, times dataParallelSize for a
     * data-parallel server; requests = limits, as Kubernetes requires for extended resources), and with a host KV tier
     * the memory that holds it ({@link KvTierMemory}).
     */
    private ResourceRequirements vllmResources() {
        ResourceRequirements user = spec.resources().orElseGet(ResourceRequirements::new);
        Map<String, Quantity> userLimits = user.getLimits() == null ? Map.of() : user.getLimits();
        Map<String, Quantity> userRequests = user.getRequests() == null ? Map.of() : user.getRequests();
        Map<String, Quantity> limits = new LinkedHashMap<>(userLimits);
        Map<String, Quantity> requests = new LinkedHashMap<>(userRequests);
        Quantity gpus = new Quantity(Integer.toString(spec.gpusPerPod()));
        limits.put(EffectiveSpec.GPU_RESOURCE, gpus);
        requests.put(EffectiveSpec.GPU_RESOURCE, gpus);
        spec.kvOffload().ifPresent(offload -> {
            KvTierMemory memory = new KvTierMemory(offload, spec.enginesPerPod());
            requests.put("memory", memory.request(userRequests, userLimits));
            limits.put("memory", memory.limit(userRequests, userLimits));
        });
        return new ResourceRequirementsBuilder().withLimits(limits).withRequests(requests).build();
    }

    private static ResourceRequirements simulatorResources() {
        return new ResourceRequirementsBuilder()
                .withRequests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("256Mi")))
                .withLimits(Map.of("memory", new Quantity("768Mi")))
                .build();
    }

    private Volume modelCacheVolume() {
        VolumeBuilder volume = new VolumeBuilder().withName(MODEL_CACHE_VOLUME);
        if (spec.modelCacheClaim().isPresent()) {
            return volume.withNewPersistentVolumeClaim().withClaimName(spec.modelCacheClaim().get()).endPersistentVolumeClaim().build();
        }
        return volume.withNewEmptyDir().withSizeLimit(spec.modelCacheSizeLimit().orElse(null)).endEmptyDir().build();
    }
}
