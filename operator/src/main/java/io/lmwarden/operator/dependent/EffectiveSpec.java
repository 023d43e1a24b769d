package io.lmwarden.operator.dependent;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.lmwarden.common.Durations;
import io.lmwarden.operator.model.Defaults;
import io.lmwarden.operator.model.KvEventsSpec;
import io.lmwarden.operator.model.KvOffloadSpec;
import io.lmwarden.operator.model.ModelCacheSpec;
import io.lmwarden.operator.model.ModelDeploymentSpec;
import io.lmwarden.operator.model.NetworkPolicySpec;
import io.lmwarden.operator.model.RouterSpec;
import io.lmwarden.operator.model.SecretKeySpec;
import io.lmwarden.operator.model.SimulatorSpec;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A ModelDeployment spec with every default applied. The CRD schema declares the same defaults,
 * but the operator must not depend on API-server defaulting having happened.
 */
public record EffectiveSpec(
        String model,
        String servedModelName,
        String vllmImage,
        int dataParallelSize,
        int tensorParallelSize,
        Optional<Integer> maxNumSeqs,
        Optional<Integer> maxModelLen,
        Optional<Double> gpuMemoryUtilization,
        List<String> extraArgs,
        List<EnvVar> env,
        Optional<ResourceRequirements> resources,
        Map<String, String> nodeSelector,
        List<Toleration> tolerations,
        Optional<String> modelCacheClaim,
        Optional<Quantity> modelCacheSizeLimit,
        String modelCacheMountPath,
        Optional<SecretKeySpec> hfTokenSecret,
        Router router,
        boolean simulated,
        String simulatorProfile,
        boolean dataParallelServer,
        NetworkIsolation networkPolicy,
        Optional<KvOffload> kvOffload,
        String schedulingPolicy,
        Optional<LoraServing> lora,
        Rollout rollout) {

    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    /** Label published by NVIDIA GPU feature discovery (part of the GPU operator) on GPU nodes. */
    public static final Map<String, String> GPU_NODE_SELECTOR = Map.of("nvidia.com/gpu.present", "true");
    public static final Toleration GPU_TOLERATION = new TolerationBuilder()
            .withKey(GPU_RESOURCE).withOperator("Exists").withEffect("NoSchedule").build();

    /** Pods of the StatefulSet: one per replica, or the one data-parallel server. */
    public int podCount() {
        return dataParallelServer ? 1 : dataParallelSize;
    }

    /** GPUs of one pod: a replica's tensorParallelSize, or all of the data-parallel server's. */
    public int gpusPerPod() {
        return dataParallelServer ? dataParallelSize * tensorParallelSize : tensorParallelSize;
    }

    /** Engines in one replica pod: the data-parallel server runs them all, a pod per replica runs one. */
    public int enginesPerPod() {
        return dataParallelServer ? dataParallelSize : 1;
    }

    /** Router settings with defaults applied. */
    public record Router(int replicas, String image, String policy, String spillThreshold, boolean affinity,
                         String sessionIdleTimeout, Admission admission, Optional<ResourceRequirements> resources,
                         Optional<SecretKeySpec> adminTokenSecret, Optional<SecretKeySpec> tenantSecret,
                         Optional<KvEvents> kvEvents, String shutdownGrace) {

        /** {@link #shutdownGrace} as a duration. */
        public Duration shutdownGraceDuration() {
            return Durations.parse(shutdownGrace);
        }
    }

    /**
     * vLLM's host-memory KV tier.
     *
     * @param sizeGiB GiB per engine (vLLM's --kv-offloading-size: the total over the engine's tensor-parallel ranks)
     * @param backend native or lmcache
     * @param sizing  how the size was chosen, for the status ({@code ModelDeploymentStatus.hostKvTier})
     */
    public record KvOffload(double sizeGiB, String backend, String sizing) {
    }

    /** KV cache events on, with the prefix-caching hash algorithm every replica uses. */
    public record KvEvents(String hashAlgorithm) {
    }

    /**
     * How replica pods are replaced and how long each may take.
     *
     * @param maxUnavailable replicas a rolling update takes down at once
     * @param drainTimeout   longest a going replica waits for its requests to finish
     * @param readyTimeout   a new replica not Ready this long pauses the rolling update
     */
    public record Rollout(int maxUnavailable, Duration drainTimeout, Duration readyTimeout) {
    }

    /**
     * The optional NetworkPolicies.
     *
     * @param routerClients   peers allowed to the router's port; empty means every pod of the namespace
     * @param metricsScrapers peers allowed to scrape replica and router pods; empty means none
     */
    public record NetworkIsolation(boolean enabled, List<NetworkPolicyPeer> routerClients, List<NetworkPolicyPeer> metricsScrapers) {
    }

    /** Admission settings the ModelDeployment gives; each absent one is the router's own default. */
    public record Admission(Optional<Boolean> enabled, Optional<Double> kvBudget, Optional<String> residencyIdle,
                            Optional<String> residencySlice, Optional<Integer> queueMax, Optional<String> queueTimeout,
                            Optional<String> queueWaitBound, Optional<String> queueKeepAlive, Optional<Boolean> queueFailFast,
                            Optional<String> engage) {
    }

    /** The spec with defaults applied, a {@code kvOffload.sizeGiB: auto} tier sized without node data (its fallback). */
    public static EffectiveSpec of(ModelDeploymentSpec spec, OperatorDefaults defaults) {
        return of(spec, defaults, NodeInventory.NOT_READ);
    }

    /** The spec with defaults applied, a {@code kvOffload.sizeGiB: auto} tier sized from these nodes ({@link AutoTierSize}). */
    public static EffectiveSpec of(ModelDeploymentSpec spec, OperatorDefaults defaults, NodeInventory nodes) {
        if (spec == null || spec.getModel() == null || spec.getModel().isBlank()) {
            throw new IllegalArgumentException("spec.model is required: a Hugging Face model id such as Qwen/Qwen3-4B-Instruct-2507");
        }
        SimulatorSpec sim = Optional.ofNullable(spec.getSimulator()).orElseGet(SimulatorSpec::new);
        boolean simulated = Boolean.TRUE.equals(sim.getEnabled());
        ModelCacheSpec cache = Optional.ofNullable(spec.getModelCache()).orElseGet(ModelCacheSpec::new);
        Optional<SecretKeySpec> token = secretKey(spec.getHfTokenSecret(), "hfTokenSecret");
        int dataParallelSize = atLeastOne(spec.getDataParallelSize(), "dataParallelSize");
        int tensorParallelSize = atLeastOne(spec.getTensorParallelSize(), "tensorParallelSize");
        boolean dataParallelServer = dataParallelServer(spec.getReplicaLayout());
        Map<String, String> nodeSelector = spec.getNodeSelector() != null ? Map.copyOf(spec.getNodeSelector())
                : simulated ? Map.of() : GPU_NODE_SELECTOR;
        Optional<ResourceRequirements> resources = Optional.ofNullable(spec.getResources());
        int engines = dataParallelServer ? dataParallelSize : 1;
        String servedModelName = orDefault(spec.getServedModelName(), spec.getModel());
        int gpusPerPod = engines * tensorParallelSize;
        long baseMiB = KvTierMemory.baseMiB(resources.map(ResourceRequirements::getRequests).orElse(Map.of()),
                resources.map(ResourceRequirements::getLimits).orElse(Map.of()));
        EffectiveSpec effective = new EffectiveSpec(
                spec.getModel(),
                servedModelName,
                orDefault(spec.getImage(), Defaults.VLLM_IMAGE),
                dataParallelSize,
                tensorParallelSize,
                Optional.ofNullable(spec.getMaxNumSeqs()),
                Optional.ofNullable(spec.getMaxModelLen()),
                Optional.ofNullable(spec.getGpuMemoryUtilization()),
                listOrEmpty(spec.getExtraArgs()),
                listOrEmpty(spec.getEnv()),
                resources,
                nodeSelector,
                spec.getTolerations() != null ? List.copyOf(spec.getTolerations())
                        : simulated ? List.of() : List.of(GPU_TOLERATION),
                Optional.ofNullable(cache.getClaimName()).filter(s -> !s.isBlank()),
                Optional.ofNullable(cache.getSizeLimit()),
                orDefault(cache.getMountPath(), Defaults.MODEL_CACHE_MOUNT_PATH),
                token,
                router(spec.getRouter(), defaults),
                simulated,
                orDefault(sim.getProfile(), Defaults.SIMULATOR_PROFILE),
                dataParallelServer,
                networkIsolation(spec.getNetworkPolicy()),
                kvOffload(spec.getKvOffload(), () -> AutoTierSize.size(gpusPerPod, engines, baseMiB, nodeSelector, simulated, nodes)),
                schedulingPolicy(spec.getSchedulingPolicy()),
                LoraServing.of(spec.getLora(), servedModelName),
                rollout(spec));
        effective.checkEngineFlags();
        return effective;
    }

    /** Whether this spec asks the operator to size the host tier from the nodes (so the reconciler reads them). */
    public static boolean sizesTierFromNodes(ModelDeploymentSpec spec) {
        return spec != null && spec.getKvOffload() != null && spec.getKvOffload().getSizeGiB() != null
                && KvOffloadSpec.AUTO.equals(spec.getKvOffload().getSizeGiB().getStrVal())
                && (spec.getSimulator() == null || !Boolean.TRUE.equals(spec.getSimulator().getEnabled()));
    }

    /** Engine flags the operator sets from the spec: the image must have the feature and extraArgs must not set them again. */
    private void checkEngineFlags() {
        if (kvOffload.isPresent()) {
            ExtraArgs.refuse(extraArgs, "spec.kvOffload", "--kv-offloading-size", "--kv-offloading-backend", "--kv-transfer-config");
            requireFeature(EngineFeature.KV_OFFLOADING_FLAGS, "spec.kvOffload");
        }
        if (router.kvEvents().isPresent()) {
            ExtraArgs.refuse(extraArgs, "spec.router.kvEvents", "--kv-events-config", "--prefix-caching-hash-algo");
            requireFeature(EngineFeature.KV_EVENTS, "spec.router.kvEvents");
        }
        if (!schedulingPolicy.equals(Defaults.SCHEDULING_POLICY)) {
            ExtraArgs.refuse(extraArgs, "spec.schedulingPolicy", "--scheduling-policy");
            requireFeature(EngineFeature.SCHEDULING_POLICY_PRIORITY, "spec.schedulingPolicy: " + schedulingPolicy);
        }
        if (lora.isPresent()) {
            ExtraArgs.refuse(extraArgs, "spec.lora", LoraServing.FLAGS);
            if (env.stream().anyMatch(e -> LoraServing.RUNTIME_UPDATING_ENV.equals(e.getName()))) {
                throw new IllegalArgumentException("spec.env sets " + LoraServing.RUNTIME_UPDATING_ENV + ", which spec.lora.runtimeUpdating "
                        + "sets: remove it from env and set spec.lora.runtimeUpdating instead");
            }
            requireFeature(EngineFeature.LORA_ADAPTERS, "spec.lora");
        }
    }

    /** An official vLLM image older than the feature's first release is refused, naming both (simulated replicas run no vLLM). */
    private void requireFeature(EngineFeature feature, String field) {
        if (simulated) {
            return;
        }
        VllmImageVersion.of(vllmImage).filter(v -> !v.has(feature)).ifPresent(v -> {
            throw new IllegalArgumentException(field + " needs vLLM's " + feature.humanName() + ", which vLLM has since "
                    + feature.firstRelease() + "; spec.image is " + vllmImage + " (" + v + "): set spec.image to vllm/vllm-openai:"
                    + feature.firstRelease() + " or newer, or leave it out for " + Defaults.VLLM_IMAGE);
        });
    }

    private static String schedulingPolicy(String policy) {
        String value = orDefault(policy, Defaults.SCHEDULING_POLICY);
        if (!value.equals("fcfs") && !value.equals("priority")) {
            throw new IllegalArgumentException("spec.schedulingPolicy must be fcfs or priority, got '" + value + "'");
        }
        return value;
    }

    private static Optional<KvOffload> kvOffload(KvOffloadSpec spec, java.util.function.Supplier<AutoTierSize.Sized> auto) {
        if (spec == null) {
            return Optional.empty();
        }
        String backend = orDefault(spec.getBackend(), Defaults.KV_OFFLOAD_BACKEND);
        if (!backend.equals("native") && !backend.equals("lmcache")) {
            throw new IllegalArgumentException("spec.kvOffload.backend must be native or lmcache, got '" + backend + "'");
        }
        IntOrString size = spec.getSizeGiB();
        if (size == null || (size.getIntVal() == null && size.getStrVal() == null)) {
            throw new IllegalArgumentException("spec.kvOffload.sizeGiB is required: the host memory for offloaded KV blocks, in GiB per "
                    + "replica, or auto");
        }
        if (KvOffloadSpec.AUTO.equals(size.getStrVal())) {
            AutoTierSize.Sized sized = auto.get();
            return Optional.of(new KvOffload(sized.sizeGiB(), backend, sized.how()));
        }
        double gib = gib(size);
        if (!(gib > 0) || Double.isInfinite(gib)) {
            throw new IllegalArgumentException("spec.kvOffload.sizeGiB must be auto or a positive number of GiB, got " + text(size));
        }
        return Optional.of(new KvOffload(gib, backend, text(size) + " GiB per engine, from spec.kvOffload.sizeGiB"));
    }

    private static double gib(IntOrString size) {
        if (size.getIntVal() != null) {
            return size.getIntVal();
        }
        try {
            return Double.parseDouble(size.getStrVal());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("spec.kvOffload.sizeGiB must be auto or a positive number of GiB, got '" + size.getStrVal() + "'");
        }
    }

    private static String text(IntOrString size) {
        return size.getIntVal() != null ? size.getIntVal().toString() : size.getStrVal();
    }

    private static Optional<KvEvents> kvEvents(KvEventsSpec spec) {
        if (spec == null || !Boolean.TRUE.equals(spec.getEnabled())) {
            return Optional.empty();
        }
        String algorithm = orDefault(spec.getHashAlgorithm(), Defaults.PREFIX_CACHING_HASH_ALGO);
        if (!algorithm.matches("sha256|sha256_cbor|xxhash|xxhash_cbor")) {
            throw new IllegalArgumentException("spec.router.kvEvents.hashAlgorithm must be sha256, sha256_cbor, xxhash or xxhash_cbor, got '"
                    + algorithm + "'");
        }
        return Optional.of(new KvEvents(algorithm));
    }

    private static Rollout rollout(ModelDeploymentSpec spec) {
        int maxUnavailable = atLeastOne(spec.getMaxUnavailable(), "maxUnavailable");
        Duration drain = duration(spec.getDrainTimeout(), Defaults.DRAIN_TIMEOUT, "drainTimeout");
        Duration ready = duration(spec.getReadyTimeout(), Defaults.READY_TIMEOUT, "readyTimeout");
        if (ready.isZero()) {
            throw new IllegalArgumentException("spec.readyTimeout must be longer than 0s: a new replica needs time to start");
        }
        return new Rollout(maxUnavailable, drain, ready);
    }

    private static String shutdownGrace(String text) {
        duration(text, Defaults.ROUTER_SHUTDOWN_GRACE, "router.shutdownGrace");
        return orDefault(text, Defaults.ROUTER_SHUTDOWN_GRACE);
    }

    private static Duration duration(String text, String fallback, String field) {
        String value = orDefault(text, fallback);
        if (!value.matches("[0-9]+(ms|s|m|h)")) {
            throw new IllegalArgumentException("spec." + field + " must be a duration such as 30s, 5m or 1h, got '" + value + "'");
        }
        return Durations.parse(value);
    }

    private static NetworkIsolation networkIsolation(NetworkPolicySpec spec) {
        NetworkPolicySpec n = spec == null ? new NetworkPolicySpec() : spec;
        return new NetworkIsolation(Boolean.TRUE.equals(n.getEnabled()), peers(n.getRouterClients(), "routerClients"),
                peers(n.getMetricsScrapers(), "metricsScrapers"));
    }

    /** The API server refuses a NetworkPolicy peer with nothing in it; say so before making one. */
    private static List<NetworkPolicyPeer> peers(List<NetworkPolicyPeer> peers, String field) {
        List<NetworkPolicyPeer> list = listOrEmpty(peers);
        for (int i = 0; i < list.size(); i++) {
            NetworkPolicyPeer p = list.get(i);
            if (p == null || (p.getPodSelector() == null && p.getNamespaceSelector() == null && p.getIpBlock() == null)) {
                throw new IllegalArgumentException("spec.networkPolicy." + field + "[" + i
                        + "] needs a podSelector, a namespaceSelector or an ipBlock");
            }
        }
        return list;
    }

    private static Optional<SecretKeySpec> secretKey(SecretKeySpec spec, String field) {
        if (spec == null) {
            return Optional.empty();
        }
        if (spec.getName() == null || spec.getName().isBlank()) {
            throw new IllegalArgumentException("spec." + field + ".name is required: the name of a Secret in the ModelDeployment's namespace");
        }
        return Optional.of(new SecretKeySpec(spec.getName(), orDefault(spec.getKey(), Defaults.HF_TOKEN_KEY)));
    }

    private static boolean dataParallelServer(String layout) {
        if (layout == null || layout.isBlank() || layout.equals(Defaults.LAYOUT_POD_PER_REPLICA)) {
            return false;
        }
        if (layout.equals(Defaults.LAYOUT_DATA_PARALLEL_SERVER)) {
            return true;
        }
        throw new IllegalArgumentException("spec.replicaLayout must be podPerReplica or dataParallelServer, got '" + layout + "'");
    }

    private static Router router(RouterSpec spec, OperatorDefaults defaults) {
        RouterSpec r = spec == null ? new RouterSpec() : spec;
        return new Router(
                atLeastOne(r.getReplicas(), "router.replicas"),
                orDefault(r.getImage(), defaults.routerImage()),
                orDefault(r.getPolicy(), Defaults.ROUTER_POLICY),
                spillThreshold(r.getSpillThreshold()),
                r.getAffinity() == null || r.getAffinity(),
                orDefault(r.getSessionIdleTimeout(), Defaults.SESSION_IDLE_TIMEOUT),
                admission(r.getAdmission()),
                Optional.ofNullable(r.getResources()),
                secretKey(r.getAdminTokenSecret(), "router.adminTokenSecret"),
                secretKey(r.getTenantSecret(), "router.tenantSecret"),
                kvEvents(r.getKvEvents()),
                shutdownGrace(r.getShutdownGrace()));
    }

    private static Admission admission(io.lmwarden.operator.model.AdmissionSpec spec) {
        io.lmwarden.operator.model.AdmissionSpec a = spec == null ? new io.lmwarden.operator.model.AdmissionSpec() : spec;
        if (a.getKvBudget() != null && !(a.getKvBudget() > 0 && a.getKvBudget() <= 4)) {
            throw new IllegalArgumentException("router.admission.kvBudget must be in (0, 4], got " + a.getKvBudget());
        }
        if (a.getEngage() != null && !a.getEngage().isBlank() && !List.of("evidence", "always").contains(a.getEngage())) {
            throw new IllegalArgumentException("router.admission.engage must be 'evidence' or 'always', got '" + a.getEngage() + "'");
        }
        if (a.getQueueMax() != null && a.getQueueMax() < 0) {
            throw new IllegalArgumentException("router.admission.queueMax must be >= 0, got " + a.getQueueMax());
        }
        return new Admission(Optional.ofNullable(a.getEnabled()), Optional.ofNullable(a.getKvBudget()),
                Optional.ofNullable(a.getResidencyIdle()).filter(s -> !s.isBlank()),
                Optional.ofNullable(a.getResidencySlice()).filter(s -> !s.isBlank()), Optional.ofNullable(a.getQueueMax()),
                Optional.ofNullable(a.getQueueTimeout()).filter(s -> !s.isBlank()),
                Optional.ofNullable(a.getQueueWaitBound()).filter(s -> !s.isBlank()),
                Optional.ofNullable(a.getQueueKeepAlive()).filter(s -> !s.isBlank()),
                Optional.ofNullable(a.getQueueFailFast()),
                Optional.ofNullable(a.getEngage()).filter(s -> !s.isBlank()));
    }

    private static String spillThreshold(IntOrString value) {
        if (value == null) {
            return Defaults.SPILL_THRESHOLD;
        }
        if (value.getIntVal() != null) {
            if (value.getIntVal() < 1) {
                throw new IllegalArgumentException("router.spillThreshold must be 'auto' or an integer >= 1, got " + value.getIntVal());
            }
            return Integer.toString(value.getIntVal());
        }
        String text = value.getStrVal();
        if (text == null || text.isBlank()) {
            return Defaults.SPILL_THRESHOLD;
        }
        if (!text.equals("auto") && !text.matches("[1-9][0-9]*")) {
            throw new IllegalArgumentException("router.spillThreshold must be 'auto' or an integer >= 1, got '" + text + "'");
        }
        return text;
    }

    private static int atLeastOne(Integer value, String field) {
        if (value == null) {
            return 1;
        }
        if (value < 1) {
            throw new IllegalArgumentException("spec." + field + " must be at least 1, got " + value);
        }
        return value;
    }

    private static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }
}
