package io.lmwarden.bench.pool;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Which of a variant's routers the bench sends steps to, as a Kubernetes Service sends only to its ready endpoints: a
 * router whose pod is terminating leaves it, a new one joins once its {@code /readyz} answers 200.
 */
public final class RouterRotation {

    private final AtomicIntegerArray out;

    public RouterRotation(int routers) {
        this.out = new AtomicIntegerArray(routers);
    }

    public boolean inRotation(int router) {
        return router < 0 || router >= out.length() || out.get(router) == 0;
    }

    void takeOut(int router) {
        out.set(router, 1);
    }

    void putBack(int router) {
        out.set(router, 0);
    }

    /** The first router in rotation, for admin calls; 0 when none is. */
    int firstInRotation() {
        for (int i = 0; i < out.length(); i++) {
            if (out.get(i) == 0) {
                return i;
            }
        }
        return 0;
    }
}
