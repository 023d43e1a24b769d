package io.lmwarden.router.kvevents;

import java.time.Duration;

/**
 * A cache view fed payloads by hand instead of by a socket: for benchmarks, and for tools that replay a captured
 * stream. The live views belong to {@link KvEventSubscriber}; this one is never connected, so its state stays
 * {@link ViewState#CONNECTING} and placement must not be given it.
 */
public final class OfflineCacheView {

    private final KvEventDecoder decoder = new KvEventDecoder();
    private final ReplicaCacheView view;

    public OfflineCacheView(String id, int evictionLogCapacity) {
        this.view = new ReplicaCacheView(id, Duration.ofDays(1), evictionLogCapacity);
    }

    /** Decodes and applies one batch payload, as the subscriber does with each in-sequence batch. */
    public void accept(byte[] payload) {
        view.apply(decoder.decode(payload), System.currentTimeMillis());
    }

    public ReplicaCacheView view() {
        return view;
    }
}
