package io.lmwarden.sim.kvevents;

import java.util.List;

/** Where an engine hands the KV cache events of one step (one vLLM {@code KVEventBatch}). Must not block. */
@FunctionalInterface
public interface KvEventSink {
    KvEventSink NONE = events -> { };

    void publish(List<KvCacheEvent> events);
}
