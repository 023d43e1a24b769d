package io.lmwarden.operator.model;

import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;

import java.util.List;
import java.util.Map;

/** What the user asks for. Fields left out get the defaults described on each field. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.servedModelName) || size(self.servedModelName) > 0",
        message = "servedModelName must not be empty; leave it out to serve the model under its Hugging Face id")
@ValidationRule(value = "!has(self.maxNumSeqs) || !has(self.router) || !has(self.router.spillThreshold) "
        + "|| type(self.router.spillThreshold) == string || self.router.spillThreshold <= self.maxNumSeqs",
        message = "router.spillThreshold must not exceed maxNumSeqs: a replica never runs more sequences than that")
public class ModelDeploymentSpec {

    @Required
    @Pattern("^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9._-]+)?$")
    @JsonPropertyDescription("Hugging Face model id served by vLLM, e.g. Qwen/Qwen3-4B-Instruct-2507.")
    private String model;

    @JsonPropertyDescription("Name clients put in the request's model field; defaults to the model id.")
    private String servedModelName;

    @Default(Defaults.VLLM_IMAGE)
    @Pattern("^[^:@\\s]+(:[A-Za-z0-9._-]+|@sha256:[a-f0-9]{64})$")
    @JsonPropertyDescription("vLLM container image with a pinned tag or digest. An official vllm/vllm-openai image older than a "
            + "feature the spec uses is refused (operator/README.md, \"Engine compatibility\").")
    private String image;

    @Default("1")
    @Min(1)
    @SpecReplicas
    @JsonPropertyDescription("Number of vLLM replicas (one pod each); the router balances and pins sessions across them."
            + " The scale subresource sets it: kubectl scale md <name> --replicas=N.")
    private Integer dataParallelSize;

    @Default(Defaults.LAYOUT_POD_PER_REPLICA)
    @Pattern("^(podPerReplica|dataParallelServer)$")
    @JsonPropertyDescription("podPerReplica: one vLLM pod per data-parallel replica (the router pins sessions to pods). "
            + "dataParallelServer: one pod with dataParallelSize x tensorParallelSize GPUs running vllm serve "
            + "--data-parallel-size N; the router pins sessions to its engine ranks (X-data-parallel-rank).")
    private String replicaLayout;

    @Default("1")
    @Min(1)
    @Max(64)
    @JsonPropertyDescription("GPUs per replica (vLLM --tensor-parallel-size); also the pod's nvidia.com/gpu limit.")
    private Integer tensorParallelSize;

    @Min(1)
    @JsonPropertyDescription("vLLM --max-num-seqs; the router's 'auto' spill threshold is a quarter of it.")
    private Integer maxNumSeqs;

    @Min(1)
    @JsonPropertyDescription("vLLM --max-model-len.")
    private Integer maxModelLen;

    @Min(value = 0.0, inclusive = false)
    @Max(1.0)
    @JsonPropertyDescription("vLLM --gpu-memory-utilization, in (0, 1].")
    private Double gpuMemoryUtilization;

    @JsonPropertyDescription("Further vLLM arguments, appended after the ones the operator sets.")
    private List<String> extraArgs;

    @JsonPropertyDescription("Extra environment variables for the vLLM container.")
    private List<EnvVar> env;

    @JsonPropertyDescription("Resources of the vLLM container; the nvidia.com/gpu limit is always set to the pod's GPUs: tensorParallelSize (times dataParallelSize for a dataParallelServer).")
    private ResourceRequirements resources;

    @JsonPropertyDescription("Node selector of replica pods; left out: nvidia.com/gpu.present=true (none in simulator mode); {} removes it.")
    private Map<String, String> nodeSelector;

    @JsonPropertyDescription("Tolerations of replica pods; left out: the nvidia.com/gpu NoSchedule taint (none in simulator mode); [] removes it.")
    private List<Toleration> tolerations;

    @JsonPropertyDescription("Where downloaded weights live: an existing PersistentVolumeClaim or an emptyDir (default).")
    private ModelCacheSpec modelCache;

    @JsonPropertyDescription("Secret with a Hugging Face token, exposed to vLLM as HF_TOKEN.")
    private SecretKeySpec hfTokenSecret;

    @JsonPropertyDescription("The router in front of the replicas.")
    private RouterSpec router;

    @JsonPropertyDescription("Run LM Warden's vLLM simulator instead of vLLM: no GPU needed.")
    private SimulatorSpec simulator;

    @JsonPropertyDescription("Optional NetworkPolicies: replica pods reachable only from their router (and a metrics scraper).")
    private NetworkPolicySpec networkPolicy;

    @JsonPropertyDescription("Host-memory KV tier of every replica (vLLM --kv-offloading-size / --kv-offloading-backend); "
            + "the pod's memory request and limit grow by its size. Simulated replicas get --kv-offload-gib.")
    private KvOffloadSpec kvOffload;

    @JsonPropertyDescription("LoRA adapters every replica serves on top of the model (vLLM --enable-lora, --lora-modules, --max-loras, "
            + "--max-lora-rank, --max-cpu-loras); each adapter is a model name of its own. Simulated replicas get the same flags.")
    private LoraSpec lora;

    @Default(Defaults.SCHEDULING_POLICY)
    @Pattern("^(fcfs|priority)$")
    @JsonPropertyDescription("vLLM --scheduling-policy: fcfs (vLLM's default) or priority (the waiting queue ordered by the "
            + "request's priority field, then arrival; preemption takes the lowest priority, latest arrival). "
            + "docs/engine-scheduling-policy.md says why fcfs stays the default.")
    private String schedulingPolicy;

    @Default(Defaults.MAX_UNAVAILABLE)
    @Min(1)
    @JsonPropertyDescription("Replicas a rolling update (a change of image, model, extraArgs or anything else in the pod) "
            + "takes down at once: each is drained, replaced, and must be Ready before the next goes.")
    private Integer maxUnavailable;

    @Default(Defaults.DRAIN_TIMEOUT)
    @Pattern("^[0-9]+(s|m|h)$")
    @JsonPropertyDescription("Longest a replica that is going (rolling update, scale-down, node drain) waits for its running "
            + "and waiting requests to finish before it stops, e.g. 5m; its terminationGracePeriodSeconds is this plus the "
            + "engine's shutdown time.")
    private String drainTimeout;

    @Default(Defaults.READY_TIMEOUT)
    @Pattern("^[0-9]+(s|m|h)$")
    @JsonPropertyDescription("A replica of the new revision that is not Ready this long after it started (or that crash-loops "
            + "or cannot pull its image) pauses the rolling update: Degraded=True, reason ReplicaFailing.")
    private String readyTimeout;

    public String getModel() { return model; }
    public void setModel(String model) { this.model = model; }
    public String getServedModelName() { return servedModelName; }
    public void setServedModelName(String servedModelName) { this.servedModelName = servedModelName; }
    public String getImage() { return image; }
    public void setImage(String image) { this.image = image; }
    public Integer getDataParallelSize() { return dataParallelSize; }
    public void setDataParallelSize(Integer dataParallelSize) { this.dataParallelSize = dataParallelSize; }
    public String getReplicaLayout() { return replicaLayout; }
    public void setReplicaLayout(String replicaLayout) { this.replicaLayout = replicaLayout; }
    public Integer getTensorParallelSize() { return tensorParallelSize; }
    public void setTensorParallelSize(Integer tensorParallelSize) { this.tensorParallelSize = tensorParallelSize; }
    public Integer getMaxNumSeqs() { return maxNumSeqs; }
    public void setMaxNumSeqs(Integer maxNumSeqs) { this.maxNumSeqs = maxNumSeqs; }
    public Integer getMaxModelLen() { return maxModelLen; }
    public void setMaxModelLen(Integer maxModelLen) { this.maxModelLen = maxModelLen; }
    public Double getGpuMemoryUtilization() { return gpuMemoryUtilization; }
    public void setGpuMemoryUtilization(Double gpuMemoryUtilization) { this.gpuMemoryUtilization = gpuMemoryUtilization; }
    public List<String> getExtraArgs() { return extraArgs; }
    public void setExtraArgs(List<String> extraArgs) { this.extraArgs = extraArgs; }
    public List<EnvVar> getEnv() { return env; }
    public void setEnv(List<EnvVar> env) { this.env = env; }
    public ResourceRequirements getResources() { return resources; }
    public void setResources(ResourceRequirements resources) { this.resources = resources; }
    public Map<String, String> getNodeSelector() { return nodeSelector; }
    public void setNodeSelector(Map<String, String> nodeSelector) { this.nodeSelector = nodeSelector; }
    public List<Toleration> getTolerations() { return tolerations; }
    public void setTolerations(List<Toleration> tolerations) { this.tolerations = tolerations; }
    public ModelCacheSpec getModelCache() { return modelCache; }
    public void setModelCache(ModelCacheSpec modelCache) { this.modelCache = modelCache; }
    public SecretKeySpec getHfTokenSecret() { return hfTokenSecret; }
    public void setHfTokenSecret(SecretKeySpec hfTokenSecret) { this.hfTokenSecret = hfTokenSecret; }
    public RouterSpec getRouter() { return router; }
    public void setRouter(RouterSpec router) { this.router = router; }
    public SimulatorSpec getSimulator() { return simulator; }
    public void setSimulator(SimulatorSpec simulator) { this.simulator = simulator; }
    public NetworkPolicySpec getNetworkPolicy() { return networkPolicy; }
    public void setNetworkPolicy(NetworkPolicySpec networkPolicy) { this.networkPolicy = networkPolicy; }
    public KvOffloadSpec getKvOffload() { return kvOffload; }
    public String getSchedulingPolicy() { return schedulingPolicy; }
    public void setSchedulingPolicy(String schedulingPolicy) { this.schedulingPolicy = schedulingPolicy; }
    public void setKvOffload(KvOffloadSpec kvOffload) { this.kvOffload = kvOffload; }
    public LoraSpec getLora() { return lora; }
    public void setLora(LoraSpec lora) { this.lora = lora; }
    public Integer getMaxUnavailable() { return maxUnavailable; }
    public void setMaxUnavailable(Integer maxUnavailable) { this.maxUnavailable = maxUnavailable; }
    public String getDrainTimeout() { return drainTimeout; }
    public void setDrainTimeout(String drainTimeout) { this.drainTimeout = drainTimeout; }
    public String getReadyTimeout() { return readyTimeout; }
    public void setReadyTimeout(String readyTimeout) { this.readyTimeout = readyTimeout; }
}
