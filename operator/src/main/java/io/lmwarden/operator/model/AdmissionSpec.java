package io.lmwarden.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/**
 * The router's KV-budgeted session admission. Every field left out takes the router's own default
 * (router/README.md), so a ModelDeployment follows the router's defaults unless it says otherwise.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AdmissionSpec {

    /** A duration above zero: the router refuses 0 for every duration here (they are periods and timeouts, not switches). */
    static final String POSITIVE_DURATION = "^0*[1-9][0-9]*(ms|s|m|h)$";

    @JsonPropertyDescription("Admission on (true) or off (false); unset: the router's default. Under saturation it queues "
            + "sessions that do not fit a replica's KV budget instead of letting them evict each other.")
    private Boolean enabled;

    @Min(value = 0.0, inclusive = false)
    @Max(4)
    @JsonPropertyDescription("Share of each replica's KV cache the resident sessions' working sets may fill, in (0, 4] (the "
            + "router's kvBudget range); unset: the router's default (0.9).")
    private Double kvBudget;

    @Pattern(POSITIVE_DURATION)
    @JsonPropertyDescription("The pause between a session's steps the return-time estimate assumes before the session has "
            + "shown any (the prior's median), e.g. 10s; set it to the agents' typical tool pause. Residency lapses by cost "
            + "under KV pressure, not by this timer. Unset: the router's default (10s).")
    private String residencyIdle;

    @Pattern("^(evidence|always)$")
    @JsonPropertyDescription("When the KV budget applies: 'evidence' (the router's default) only while the pool thrashes "
            + "(resident sessions missing their own cached prefix, an engine's KV full with requests waiting) and holding "
            + "paused residents pays (the pool's median pause under half the break-even), otherwise placement exactly as "
            + "the policy; 'always' on every step.")
    private String engage;

    @Pattern(POSITIVE_DURATION)
    @JsonPropertyDescription("A session resident this long yields its residency at its next pause while others wait, e.g. 10m; unset: the "
            + "router's default (10m).")
    private String residencySlice;

    @Min(0)
    @JsonPropertyDescription("Requests the router's queue holds; beyond it clients get 429 / 529 with Retry-After. Unset: the router's "
            + "default (1024).")
    private Integer queueMax;

    @Pattern(POSITIVE_DURATION)
    @JsonPropertyDescription("Longest a request waits in the router's queue, e.g. 5m; then 429 / 529 with Retry-After. Unset: the router's "
            + "default (5m).")
    private String queueTimeout;

    @Pattern(POSITIVE_DURATION)
    @JsonPropertyDescription("Longest a step of a session in progress waits in the router's queue, e.g. 60s; then it is admitted "
            + "over the KV budget (a newcomer that waited this long is admitted with its reply budgeted at the pool's recent replies "
            + "where that fits). Unset: the router's default (60s).")
    private String queueWaitBound;

    @Pattern(POSITIVE_DURATION)
    @JsonPropertyDescription("How often a queued streaming request gets a keep-alive event, e.g. 10s; unset: the router's default (10s).")
    private String queueKeepAlive;

    @JsonPropertyDescription("Refuse a newcomer at once (429 / 529 with Retry-After) when its forecast wait passes queueTimeout; "
            + "false: every newcomer queues and waits up to queueTimeout. Unset: the router's default (true).")
    private Boolean queueFailFast;

    public Boolean getQueueFailFast() { return queueFailFast; }
    public void setQueueFailFast(Boolean queueFailFast) { this.queueFailFast = queueFailFast; }
    public Boolean getEnabled() { return enabled; }
    public void setEnabled(Boolean enabled) { this.enabled = enabled; }
    public Double getKvBudget() { return kvBudget; }
    public void setKvBudget(Double kvBudget) { this.kvBudget = kvBudget; }
    public String getResidencyIdle() { return residencyIdle; }
    public void setResidencyIdle(String residencyIdle) { this.residencyIdle = residencyIdle; }
    public String getEngage() { return engage; }
    public void setEngage(String engage) { this.engage = engage; }
    public String getResidencySlice() { return residencySlice; }
    public void setResidencySlice(String residencySlice) { this.residencySlice = residencySlice; }
    public Integer getQueueMax() { return queueMax; }
    public void setQueueMax(Integer queueMax) { this.queueMax = queueMax; }
    public String getQueueTimeout() { return queueTimeout; }
    public void setQueueTimeout(String queueTimeout) { this.queueTimeout = queueTimeout; }
    public String getQueueWaitBound() { return queueWaitBound; }
    public void setQueueWaitBound(String queueWaitBound) { this.queueWaitBound = queueWaitBound; }
    public String getQueueKeepAlive() { return queueKeepAlive; }
    public void setQueueKeepAlive(String queueKeepAlive) { this.queueKeepAlive = queueKeepAlive; }
}
