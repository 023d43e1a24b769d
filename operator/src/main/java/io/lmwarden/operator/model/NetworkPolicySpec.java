package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;

import java.util.List;

/** Optional NetworkPolicies that keep the replica pods reachable only through their router. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkPolicySpec {

    @Default("false")
    @JsonPropertyDescription("Make two NetworkPolicies: <name>-replicas (replica pods accept port 8000 only from this "
            + "ModelDeployment's router pods and from metricsScrapers) and <name>-router (router pods accept port 8000 "
            + "from routerClients and metricsScrapers, and the cluster ports from each other). Needs a CNI that enforces "
            + "NetworkPolicy. Setting it to false removes them.")
    private Boolean enabled;

    @ValidationRule(value = "self.all(p, has(p.podSelector) || has(p.namespaceSelector) || has(p.ipBlock))",
            message = "each peer needs a podSelector, a namespaceSelector or an ipBlock")
    @JsonPropertyDescription("Who may reach the router's port 8000 (NetworkPolicy peers). Left out: every pod in the "
            + "ModelDeployment's namespace.")
    private List<NetworkPolicyPeer> routerClients;

    @ValidationRule(value = "self.all(p, has(p.podSelector) || has(p.namespaceSelector) || has(p.ipBlock))",
            message = "each peer needs a podSelector, a namespaceSelector or an ipBlock")
    @JsonPropertyDescription("Who may scrape /metrics on port 8000 of the replica and router pods, e.g. "
            + "{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}} for Prometheus. Left out: "
            + "nobody beyond the router (the chart's PodMonitor then cannot scrape the replicas).")
    private List<NetworkPolicyPeer> metricsScrapers;

    public Boolean getEnabled() { return enabled; }
    public void setEnabled(Boolean enabled) { this.enabled = enabled; }
    public List<NetworkPolicyPeer> getRouterClients() { return routerClients; }
    public void setRouterClients(List<NetworkPolicyPeer> routerClients) { this.routerClients = routerClients; }
    public List<NetworkPolicyPeer> getMetricsScrapers() { return metricsScrapers; }
    public void setMetricsScrapers(List<NetworkPolicyPeer> metricsScrapers) { this.metricsScrapers = metricsScrapers; }
}
