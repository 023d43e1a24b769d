package io.lmwarden.router.config;

/**
 * Every router setting, with its YAML key, flag, environment variable and default. One table, so
 * that the three sources cannot drift apart and the README reference is checked against it.
 */
public enum RouterOption {
    PORT("port", "8000", "HTTP port the router listens on"),
    HOST("host", "0.0.0.0", "address to bind"),
    REPLICAS("replicas", "", "static replica base URLs, comma separated (http://host:port, id=http://host:port; #ranks=N after one: a vllm serve --data-parallel-size N server)"),
    K8S_SERVICE("k8sService", "", "discover replicas from the EndpointSlices of this Kubernetes Service"),
    NAMESPACE("namespace", "", "namespace of that Service (default: the pod's own, from its service account)"),
    SIMULATE("simulate", "0", "start N simulated vLLM replicas in-process and route to them"),
    SIM_PROFILE("simProfile", "a4000-qwen3-4b", "simulator profile for --simulate"),
    SIM_MODEL("simModel", "Qwen/Qwen3-4B-Instruct-2507", "model name the simulated replicas serve"),
    TIME_SCALE("timeScale", "1", "simulated replicas run K times faster than real time"),
    POLICY("policy", "affinity", "placement policy: affinity, cost, least-loaded, round-robin, passthrough"),
    SPILL_THRESHOLD("spillThreshold", "auto", "in-flight requests on the home replica above which a step spills: auto (= max_num_seqs/4) or an integer"),
    AFFINITY("affinity", "true", "session affinity on/off; off places every request like least-loaded"),
    MAX_NUM_SEQS("maxNumSeqs", "32", "engine max_num_seqs, used for spill threshold auto when the engine does not expose it"),
    PREFILL_MS_PER_TOKEN("prefillMsPerToken", "0.3", "prior for the engines' prefill time per prompt token, in ms (learned online per replica; 0.3 = Qwen3-4B on an RTX A4000; with --simulate the profile's own)"),
    ADMISSION("admission", "true", "KV-budgeted session admission on/off: a session that is not resident waits in the router's queue until its working set fits a replica's KV budget"),
    KV_BUDGET("kvBudget", "0.9", "share of each replica's KV capacity (vllm:cache_config_info) the working sets of its resident sessions may fill"),
    RESIDENCY_IDLE("residencyIdle", "5s", "a resident session with no request in flight this long (workload time) stops being resident"),
    RESIDENCY_SLICE("residencySlice", "10m", "a session resident this long yields its residency at its next pause while others wait (workload time)"),
    QUEUE_MAX("queueMax", "1024", "requests the admission queue holds; beyond it 429 (OpenAI) / 529 (Anthropic) with Retry-After"),
    QUEUE_TIMEOUT("queueTimeout", "5m", "longest a request waits for admission (workload time); then 429 / 529 with Retry-After"),
    QUEUE_KEEP_ALIVE("queueKeepAlive", "10s", "a queued streaming request gets a keep-alive event this often (Anthropic event: ping, OpenAI SSE comment; workload time)"),
    SESSION_IDLE_TIMEOUT("sessionIdleTimeout", "2h", "an affinity entry unused this long is forgotten"),
    AFFINITY_MAX_ENTRIES("affinityMaxEntries", "1000000", "bound of the affinity table; the least recently used entry goes first"),
    SCRAPE_INTERVAL("scrapeInterval", "500ms", "how often each replica's /metrics is scraped"),
    METRICS_STALE_AFTER("metricsStaleAfter", "3s", "engine metrics older than this are ignored; the router's own in-flight counts place requests"),
    BODY_LIMIT("bodyLimit", "32MiB", "largest request body accepted (413 beyond)"),
    CONNECT_TIMEOUT("connectTimeout", "5s", "connect timeout to a replica"),
    STREAM_IDLE_TIMEOUT("streamIdleTimeout", "300s", "a replica silent for this long ends the request with 504 (idle, not total)"),
    SHUTDOWN_GRACE("shutdownGrace", "30s", "on shutdown, in-flight streams may finish for this long"),
    MAX_CONNECTIONS_PER_REPLICA("maxConnectionsPerReplica", "1024", "open connections (so in-flight requests) to one replica at most; beyond it a request waits up to replicaQueueTimeout, then gets 503"),
    REPLICA_QUEUE_TIMEOUT("replicaQueueTimeout", "2s", "how long a request waits for a connection to a replica at its maxConnectionsPerReplica cap before 503"),
    HEALTH_TIMEOUT("healthTimeout", "1s", "a replica whose /health does not answer within this leaves rotation (health checks have their own connections)"),
    MAX_CLIENT_CONNECTIONS("maxClientConnections", "10000", "client connections the router keeps open at most; beyond it the longest-idle one is closed, or the new one if none is idle"),
    BODY_TIMEOUT("bodyTimeout", "60s", "a request body must arrive whole within this after its headers (408 otherwise)"),
    CLIENT_IDLE_TIMEOUT("clientIdleTimeout", "330s", "a client connection with no request in progress for this long, or no byte either way for this long, is closed (above streamIdleTimeout, so a quiet stream is ended by the router first)"),
    HEADER_TIMEOUT("headerTimeout", "10s", "a client connection must deliver a request's whole head (request line and headers) within this from its first byte, or from connecting, else 408 and close (slowloris)"),
    RETRY_ATTEMPTS("retryAttempts", "4", "replicas a request is tried on at most, while nothing of an answer has reached the client (never one that already failed it); 1 = no retry"),
    RETRY_BUDGET("retryBudget", "10m", "no retry starts later than this after a request's first attempt (0 = no limit but retryAttempts)"),
    ADMIN_PORT("adminPort", "", "serve the admin API (/api/*) and web UI on this port instead of the inference port (0 = a free port)"),
    ADMIN_TOKEN("adminToken", "", "when set, every /api/* endpoint and raw session keys need 'Authorization: Bearer <token>'"),
    TENANT_HEADER("tenantHeader", "", "request header naming the tenant (e.g. X-Tenant-Id); without it the API key names the tenant"),
    TENANT_FROM_API_KEY("tenantFromApiKey", "true", "a request's API key (Authorization: Bearer, x-api-key) identifies its tenant when tenantHeader is absent"),
    TENANT_SECRET("tenantSecret", "", "secret the per-tenant cache_salt is derived from (HMAC-SHA256); default: clustered routers share one the first member generated, a router alone makes up its own at start"),
    CLUSTER("cluster", "", "router pods that share pins and load: empty (this router alone), dns:<headless Service name> (Kubernetes) or static:host:port,... (every member's clusterBind:clusterPort)"),
    CLUSTER_BIND("clusterBind", "127.0.0.1", "address the cluster transport (JGroups TCP) binds; on Kubernetes the pod IP"),
    CLUSTER_PORT("clusterPort", "7800", "cluster transport port; failure detection listens on clusterPort + 1"),
    CLUSTER_NAME("clusterName", "lmw-router", "routers join only a cluster of this name (one per ModelDeployment)"),
    LOG_FORMAT("logFormat", "text", "log line format: text or json"),
    TRANSPORT("transport", "native", "sockets through Linux's epoll (native; Java NIO where epoll is not available) or Java NIO (nio)"),
    CONFIG("config", "", "YAML config file with any of these keys");

    private final String key;
    private final String defaultValue;
    private final String description;

    RouterOption(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** Key in the YAML file, e.g. {@code spillThreshold}. */
    public String key() {
        return key;
    }

    /** Command line flag, e.g. {@code --spill-threshold}. */
    public String flag() {
        return "--" + key.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
    }

    /** Environment variable, e.g. {@code LMW_SPILL_THRESHOLD}. */
    public String env() {
        return "LMW_" + name();
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }
}
