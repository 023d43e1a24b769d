package io.lmwarden.operator;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.lmwarden.operator.model.ModelDeployment;
import io.lmwarden.operator.model.ModelDeploymentSpec;
import io.lmwarden.operator.model.RouterSpec;
import io.lmwarden.operator.model.SecretKeySpec;
import io.lmwarden.operator.model.SimulatorSpec;

/** ModelDeployments used across tests, built the way a user's YAML would deserialize. */
public final class SampleModelDeployments {
    private SampleModelDeployments() {
    }

    /** The reference setup: Qwen3-4B, four replicas of one GPU each, spill threshold auto. */
    public static ModelDeployment qwenDp4(String namespace) {
        ModelDeploymentSpec spec = new ModelDeploymentSpec();
        spec.setModel("Qwen/Qwen3-4B-Instruct-2507");
        spec.setDataParallelSize(4);
        spec.setTensorParallelSize(1);
        spec.setMaxNumSeqs(32);
        spec.setHfTokenSecret(new SecretKeySpec("hf-token", null));
        RouterSpec router = new RouterSpec();
        router.setSpillThreshold(new IntOrString("auto"));
        spec.setRouter(router);
        return withSpec("qwen3-4b", namespace, spec);
    }

    /** Two replicas of two GPUs each, with user resources, args and a custom node selector. */
    public static ModelDeployment tensorParallel(String namespace) {
        ModelDeploymentSpec spec = new ModelDeploymentSpec();
        spec.setModel("Qwen/Qwen3-32B");
        spec.setServedModelName("qwen3-32b");
        spec.setDataParallelSize(2);
        spec.setTensorParallelSize(2);
        spec.setMaxModelLen(32768);
        spec.setGpuMemoryUtilization(0.9);
        spec.setExtraArgs(java.util.List.of("--kv-cache-dtype", "fp8"));
        spec.setNodeSelector(java.util.Map.of("gpu.example.com/class", "a100"));
        spec.setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToLimits("memory", new io.fabric8.kubernetes.api.model.Quantity("64Gi"))
                .addToLimits("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("8"))
                .build());
        RouterSpec router = new RouterSpec();
        router.setReplicas(2);
        router.setPolicy("least-loaded");
        router.setSpillThreshold(new IntOrString(6));
        router.setAffinity(false);
        router.setSessionIdleTimeout("30m");
        io.lmwarden.operator.model.AdmissionSpec admission = new io.lmwarden.operator.model.AdmissionSpec();
        admission.setEnabled(false);
        admission.setKvBudget(0.8);
        admission.setQueueTimeout("2m");
        admission.setEngage("always");
        router.setAdmission(admission);
        spec.setRouter(router);
        return withSpec("big", namespace, spec);
    }

    /** Simulated replicas: no GPU, LM Warden's simulator from the router image. */
    public static ModelDeployment simulated(String namespace, int replicas) {
        ModelDeploymentSpec spec = new ModelDeploymentSpec();
        spec.setModel("Qwen/Qwen3-4B-Instruct-2507");
        spec.setDataParallelSize(replicas);
        spec.setSimulator(new SimulatorSpec(true, "a4000-qwen3-4b"));
        return withSpec("sim", namespace, spec);
    }

    /** The reference setup with NetworkPolicies on, two clustered routers reachable from one client namespace,
     *  Prometheus scraping from the monitoring namespace, and the router's admin token from a Secret. */
    public static ModelDeployment isolated(String namespace) {
        ModelDeployment md = qwenDp4(namespace);
        io.lmwarden.operator.model.NetworkPolicySpec policy = new io.lmwarden.operator.model.NetworkPolicySpec();
        policy.setEnabled(true);
        policy.setRouterClients(java.util.List.of(namespacePeer("agents")));
        policy.setMetricsScrapers(java.util.List.of(namespacePeer("monitoring")));
        md.getSpec().setNetworkPolicy(policy);
        md.getSpec().getRouter().setReplicas(2);
        md.getSpec().getRouter().setAdminTokenSecret(new SecretKeySpec("lmw-admin", "admin-token"));
        return md;
    }

    /** The isolated reference setup on a vLLM with the host tier (40 GiB per replica, native) and KV events. */
    public static ModelDeployment hostTierAndEvents(String namespace) {
        ModelDeployment md = isolated(namespace);
        md.getSpec().setImage("vllm/vllm-openai:v0.23.0");
        md.getSpec().setKvOffload(new io.lmwarden.operator.model.KvOffloadSpec(40.0, "native"));
        md.getSpec().getRouter().setKvEvents(new io.lmwarden.operator.model.KvEventsSpec(true, "sha256_cbor"));
        md.getSpec().setMaxUnavailable(2);
        md.getSpec().setDrainTimeout("10m");
        return md;
    }

    /** One vLLM data-parallel server of four engines publishing KV events, isolated: port ranges everywhere. */
    public static ModelDeployment dataParallelServerWithEvents(String namespace) {
        ModelDeployment md = hostTierAndEvents(namespace);
        md.getMetadata().setName("dp-server");
        md.getSpec().setReplicaLayout("dataParallelServer");
        return md;
    }

    /** The reference setup serving three LoRA adapters: two from one claim, one from Hugging Face, with runtime updating. */
    public static ModelDeployment withLora(String namespace) {
        ModelDeployment md = qwenDp4(namespace);
        md.getSpec().setLora(new io.lmwarden.operator.model.LoraSpec(java.util.List.of(
                io.lmwarden.operator.model.LoraAdapterSpec.fromVolume("team-coder", "lora-adapters", "adapters/team-coder"),
                io.lmwarden.operator.model.LoraAdapterSpec.fromVolume("py-coder", "lora-adapters", "adapters/py-coder"),
                io.lmwarden.operator.model.LoraAdapterSpec.fromHuggingFace("sql-coder", "example-org/qwen3-4b-sql-lora")),
                2, 32, 4, true));
        return md;
    }

    public static io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer namespacePeer(String namespace) {
        return new io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder().withNewNamespaceSelector()
                .addToMatchLabels("kubernetes.io/metadata.name", namespace).endNamespaceSelector().build();
    }

    public static ModelDeployment withSpec(String name, String namespace, ModelDeploymentSpec spec) {
        ModelDeployment md = new ModelDeployment();
        md.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).withGeneration(1L).build());
        md.setSpec(spec);
        return md;
    }
}
