package io.lmwarden.router.pool;

/**
 * An endpoint as discovery sees it: a stable id (pod name), its base URL, whether it may take new requests,
 * and how many data-parallel engine ranks it serves when that is declared ({@code http://host:8000#ranks=4}).
 * {@code ranks} 0 means "learn it from the endpoint's {@code /metrics}": more than one {@code engine} label
 * value makes each engine a replica of its own; one (or none) keeps the endpoint a single replica.
 * {@code draining}: the endpoint is going (Kubernetes: {@code terminating=true}, {@code serving=true}) but still
 * serves what it has in flight; it takes no new work, while {@code ready} is false.
 * {@code kvEventsPort} / {@code kvReplayPort}: where rank 0 of the endpoint publishes vLLM's KV events (ZMQ PUB) and
 * answers replays (ZMQ ROUTER); rank r adds r (vLLM's rule); 0 = not published / no replay socket.
 */
public record DiscoveredReplica(String id, String url, boolean ready, int ranks, boolean draining, int kvEventsPort,
                                int kvReplayPort) {

    public DiscoveredReplica {
        if (ranks < 0) {
            throw new IllegalArgumentException("ranks of " + id + " must be >= 0, got " + ranks);
        }
        if (kvEventsPort < 0 || kvEventsPort > 65535 || kvReplayPort < 0 || kvReplayPort > 65535) {
            throw new IllegalArgumentException("KV event ports of " + id + " must be 1..65535 (0 = none)");
        }
    }

    public DiscoveredReplica(String id, String url, boolean ready, int ranks, boolean draining) {
        this(id, url, ready, ranks, draining, 0, 0);
    }

    public DiscoveredReplica(String id, String url, boolean ready, int ranks) {
        this(id, url, ready, ranks, false);
    }

    public DiscoveredReplica(String id, String url, boolean ready) {
        this(id, url, ready, 0, false);
    }

    /** Whether requests in flight there go on: ready, or draining. */
    public boolean serving() {
        return ready || draining;
    }

    /** Whether the endpoint publishes KV events that the router can follow. */
    public boolean publishesKvEvents() {
        return kvEventsPort > 0;
    }
}
