package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the operator observed. Written only by the operator through the status subresource. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ModelDeploymentStatus {

    @JsonPropertyDescription("metadata.generation of the spec this status describes.")
    private Long observedGeneration;

    @StatusReplicas
    @JsonPropertyDescription("Replica pods passing their readiness probe.")
    private Integer readyReplicas;

    @JsonPropertyDescription("Ready replicas running the current pod template (a rolling update raises it one by one).")
    private Integer updatedReplicas;

    @JsonPropertyDescription("Ready replica pods / dataParallelSize, e.g. 3/4 (the READY column).")
    private String ready;

    @LabelSelector
    @JsonPropertyDescription("Label selector of the replica pods, for the scale subresource (kubectl scale, autoscalers).")
    private String selector;

    @JsonPropertyDescription("True when at least one router pod is ready.")
    private Boolean routerReady;

    @JsonPropertyDescription("In-cluster URL of the router Service; agents use <endpoint>/v1.")
    private String endpoint;

    @JsonPropertyDescription("Ready, Progressing and Degraded, each with a reason.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("How kvOffload.sizeGiB was chosen: the size per replica and where it came from (the spec, the "
            + "smallest eligible node's allocatable memory per GPU, or the fallback when nodes are not readable).")
    private String hostKvTier;

    public Long getObservedGeneration() { return observedGeneration; }
    public void setObservedGeneration(Long observedGeneration) { this.observedGeneration = observedGeneration; }
    public Integer getReadyReplicas() { return readyReplicas; }
    public void setReadyReplicas(Integer readyReplicas) { this.readyReplicas = readyReplicas; }
    public Integer getUpdatedReplicas() { return updatedReplicas; }
    public void setUpdatedReplicas(Integer updatedReplicas) { this.updatedReplicas = updatedReplicas; }
    public String getReady() { return ready; }
    public void setReady(String ready) { this.ready = ready; }
    public String getSelector() { return selector; }
    public void setSelector(String selector) { this.selector = selector; }
    public Boolean getRouterReady() { return routerReady; }
    public void setRouterReady(Boolean routerReady) { this.routerReady = routerReady; }
    public String getEndpoint() { return endpoint; }
    public void setEndpoint(String endpoint) { this.endpoint = endpoint; }
    public List<Condition> getConditions() { return conditions; }
    public void setConditions(List<Condition> conditions) { this.conditions = conditions; }
    public String getHostKvTier() { return hostKvTier; }
    public void setHostKvTier(String hostKvTier) { this.hostKvTier = hostKvTier; }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelDeploymentStatus s
                && Objects.equals(observedGeneration, s.observedGeneration)
                && Objects.equals(readyReplicas, s.readyReplicas)
                && Objects.equals(updatedReplicas, s.updatedReplicas)
                && Objects.equals(ready, s.ready)
                && Objects.equals(selector, s.selector)
                && Objects.equals(routerReady, s.routerReady)
                && Objects.equals(endpoint, s.endpoint)
                && Objects.equals(conditions, s.conditions)
                && Objects.equals(hostKvTier, s.hostKvTier);
    }

    @Override
    public int hashCode() {
        return Objects.hash(observedGeneration, readyReplicas, updatedReplicas, ready, selector, routerReady, endpoint, conditions, hostKvTier);
    }
}
