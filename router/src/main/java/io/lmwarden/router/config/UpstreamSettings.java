package io.lmwarden.router.config;

import java.time.Duration;

/** The proxy's side towards the replicas: connections, silence, and how far a failed request is retried. */
public record UpstreamSettings(
        Duration connectTimeout,
        Duration streamIdleTimeout,
        int maxConnectionsPerReplica,
        Duration replicaQueueTimeout,
        int retryAttempts,
        Duration retryBudget,
        boolean enginePriority) {

    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.duration("connectTimeout", "5s", "connect timeout to a replica");
    public static final Setting<Duration> STREAM_IDLE_TIMEOUT = Setting.duration("streamIdleTimeout", "300s",
            "a replica silent for this long ends the request with 504 (idle, not total)");
    public static final Setting<Integer> MAX_CONNECTIONS_PER_REPLICA = Setting.integer("maxConnectionsPerReplica", 1024,
            "open connections (so in-flight requests) to one replica at most; beyond it a request waits up to replicaQueueTimeout, "
                    + "then gets 503").atLeast(1);
    public static final Setting<Duration> REPLICA_QUEUE_TIMEOUT = Setting.duration("replicaQueueTimeout", "2s",
            "how long a request waits for a connection to a replica at its maxConnectionsPerReplica cap before 503");
    public static final Setting<Integer> RETRY_ATTEMPTS = Setting.integer("retryAttempts", 4,
            "replicas a request is tried on at most, while nothing of an answer has reached the client (never one that already "
                    + "failed it); 1 = no retry").atLeast(1);
    public static final Setting<Duration> RETRY_BUDGET = Setting.duration("retryBudget", "10m",
            "no retry starts later than this after a request's first attempt (0 = no limit but retryAttempts)").notNegative();
    public static final Setting<Boolean> ENGINE_PRIORITY = Setting.bool("enginePriority", true,
            "chat/completions and completions requests carry vLLM's `priority` (lower runs first): the session's attained "
                    + "service in doublings of 4k tokens, one less for each service half-life (60 s) the step waited in the "
                    + "router's queue; an engine run with `--scheduling-policy priority` orders its waiting queue and picks whom "
                    + "to preempt by it, one with the default `fcfs` ignores it; a client's own `priority` is left as it is");
}
