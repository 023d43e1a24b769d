package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

/** Settings of the LM Warden router Deployment. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RouterSpec {

    @Default("1")
    @Min(1)
    @JsonPropertyDescription("Router pods. More than one form a cluster that shares session pins and load (a headless peer Service, a PodDisruptionBudget and pod anti-affinity come with it).")
    private Integer replicas;

    @JsonPropertyDescription("Router image; defaults to the operator's router image (chart value router.image, LMW_ROUTER_IMAGE). An image other "
            + "than that one is checked against the operator's image allow-list.")
    private String image;

    @Default(Defaults.ROUTER_POLICY)
    @Pattern("^(affinity|least-loaded|round-robin|cost|passthrough)$")
    @JsonPropertyDescription("Placement policy: affinity, least-loaded, round-robin, cost, or passthrough (a data-parallel server balances its own engines).")
    private String policy;

    @Default(Defaults.SPILL_THRESHOLD)
    @ValidationRule(value = "type(self) == int ? self >= 1 : self == 'auto'",
            message = "spillThreshold must be 'auto' or an integer >= 1")
    @JsonPropertyDescription("Running sequences on a session's home replica above which it spills elsewhere: "
            + "'auto' (a quarter of maxNumSeqs) or an integer.")
    private IntOrString spillThreshold;

    @Default("true")
    @JsonPropertyDescription("Pin sessions to replicas (true) or place every request afresh (false).")
    private Boolean affinity;

    @Default(Defaults.SESSION_IDLE_TIMEOUT)
    @Pattern("^[0-9]+(ms|s|m|h)$")
    @JsonPropertyDescription("Idle time after which a session's pin is forgotten, e.g. 30m or 2h.")
    private String sessionIdleTimeout;

    @JsonPropertyDescription("KV-budgeted session admission: queue sessions that do not fit a replica's KV cache instead of "
            + "letting them evict each other. Fields left out take the router's defaults.")
    private AdmissionSpec admission;

    @JsonPropertyDescription("Resources of the router container; left out: 250m CPU and 256Mi memory requested, a 1Gi memory limit.")
    private ResourceRequirements resources;

    @JsonPropertyDescription("Secret key holding the router's admin token (env LMW_ADMIN_TOKEN): every /api/* endpoint "
            + "and raw session keys then need 'Authorization: Bearer <token>'. Read when a router pod starts (after rotating the "
            + "Secret, kubectl rollout restart deployment/<name>-router); a missing Secret keeps the router pod from starting "
            + "(CreateContainerConfigError) rather than starting it unguarded.")
    private SecretKeySpec adminTokenSecret;

    @JsonPropertyDescription("Secret key holding the secret every tenant's cache_salt is derived from (env LMW_TENANT_SECRET), "
            + "so salts, and with them the replicas' cached prefixes, survive restarts of every router pod. Without it the "
            + "clustered routers agree on a random one that a restart of all of them replaces. Read when a router pod starts "
            + "(changing the Secret changes every salt after kubectl rollout restart deployment/<name>-router); a missing "
            + "Secret keeps the router pod from starting (CreateContainerConfigError).")
    private SecretKeySpec tenantSecret;

    @JsonPropertyDescription("vLLM KV cache events: replicas publish which blocks they store and evict, the router subscribes.")
    private KvEventsSpec kvEvents;

    @Default(Defaults.ROUTER_SHUTDOWN_GRACE)
    @Pattern("^[0-9]+(ms|s|m|h)$")
    @JsonPropertyDescription("How long a stopping router pod lets its open streams and queued requests finish (the router's "
            + "shutdownGrace); the pod's terminationGracePeriodSeconds is set above it.")
    private String shutdownGrace;

    public Integer getReplicas() { return replicas; }
    public void setReplicas(Integer replicas) { this.replicas = replicas; }
    public String getImage() { return image; }
    public void setImage(String image) { this.image = image; }
    public String getPolicy() { return policy; }
    public void setPolicy(String policy) { this.policy = policy; }
    public IntOrString getSpillThreshold() { return spillThreshold; }
    public void setSpillThreshold(IntOrString spillThreshold) { this.spillThreshold = spillThreshold; }
    public Boolean getAffinity() { return affinity; }
    public void setAffinity(Boolean affinity) { this.affinity = affinity; }
    public String getSessionIdleTimeout() { return sessionIdleTimeout; }
    public void setSessionIdleTimeout(String sessionIdleTimeout) { this.sessionIdleTimeout = sessionIdleTimeout; }
    public AdmissionSpec getAdmission() { return admission; }
    public void setAdmission(AdmissionSpec admission) { this.admission = admission; }
    public ResourceRequirements getResources() { return resources; }
    public void setResources(ResourceRequirements resources) { this.resources = resources; }
    public SecretKeySpec getAdminTokenSecret() { return adminTokenSecret; }
    public void setAdminTokenSecret(SecretKeySpec adminTokenSecret) { this.adminTokenSecret = adminTokenSecret; }
    public SecretKeySpec getTenantSecret() { return tenantSecret; }
    public void setTenantSecret(SecretKeySpec tenantSecret) { this.tenantSecret = tenantSecret; }
    public KvEventsSpec getKvEvents() { return kvEvents; }
    public void setKvEvents(KvEventsSpec kvEvents) { this.kvEvents = kvEvents; }
    public String getShutdownGrace() { return shutdownGrace; }
    public void setShutdownGrace(String shutdownGrace) { this.shutdownGrace = shutdownGrace; }
}
