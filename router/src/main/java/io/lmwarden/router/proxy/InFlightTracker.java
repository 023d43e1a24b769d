package io.lmwarden.router.proxy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts exchanges the router is serving, so shutdown can wait for them to finish. */
public final class InFlightTracker {

    private final AtomicInteger active = new AtomicInteger();
    private volatile CompletableFuture<Void> drained;

    public void begin() {
        active.incrementAndGet();
    }

    public void end() {
        if (active.decrementAndGet() == 0) {
            CompletableFuture<Void> d = drained;
            if (d != null) {
                d.complete(null);
            }
        }
    }

    public int active() {
        return active.get();
    }

    /** Completes when nothing is in flight. */
    public synchronized CompletableFuture<Void> whenDrained() {
        if (drained == null) {
            drained = new CompletableFuture<>();
        }
        if (active.get() == 0) {
            drained.complete(null);
        }
        return drained;
    }
}
