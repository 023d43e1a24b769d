package io.lmwarden.router.kvevents;

import java.util.ArrayList;
import java.util.List;

/**
 * One engine's KV-event publisher: its ZeroMQ PUB port ({@code kv-events}, vLLM's default 5557), its ROUTER replay
 * port ({@code kv-replay}; 0 when the engine has none) and the topic it publishes under (vLLM's default is empty).
 * {@code viewId} names the cache view it feeds: the replica's id as placement knows it.
 */
public record KvEventEndpoint(String viewId, String host, int eventsPort, int replayPort, String topic) {

    public KvEventEndpoint {
        if (eventsPort <= 0 || eventsPort > 65535) {
            throw new IllegalArgumentException("kv-events port out of range: " + eventsPort);
        }
        if (replayPort < 0 || replayPort > 65535) {
            throw new IllegalArgumentException("kv-replay port out of range: " + replayPort);
        }
        topic = topic == null ? "" : topic;
    }

    public boolean hasReplay() {
        return replayPort > 0;
    }

    /**
     * The publishers of a data-parallel server: rank r publishes on {@code eventsPort + r} and replays on
     * {@code replayPort + r} (vLLM's {@code offset_endpoint_port}). With one rank the view is the endpoint's own id;
     * with several, {@code <endpointId>/rank-<r>}, the ids placement gives the ranks.
     */
    public static List<KvEventEndpoint> ranks(String endpointId, String host, int eventsPort, int replayPort,
                                              int ranks, String topic) {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be at least 1: " + ranks);
        }
        List<KvEventEndpoint> all = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            String id = ranks == 1 ? endpointId : endpointId + "/rank-" + r;
            all.add(new KvEventEndpoint(id, host, eventsPort + r, replayPort > 0 ? replayPort + r : 0, topic));
        }
        return all;
    }
}
