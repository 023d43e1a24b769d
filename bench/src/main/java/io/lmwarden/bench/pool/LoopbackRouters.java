package io.lmwarden.bench.pool;

import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.RouterConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * One router, or several clustered over loopback ({@link LoopbackCluster}, as the router's cluster tests
 * run them), all in this process with the same configuration. The members start one after the other:
 * each returns once it has joined and learned the pins, so all agree before the first request.
 */
public final class LoopbackRouters implements AutoCloseable {

    private final List<LmWardenRouter> routers;

    private LoopbackRouters(List<LmWardenRouter> routers) {
        this.routers = routers;
    }

    /** {@code clusterName}: a name of this run's own, so that no other cluster on the machine is joined. */
    public static LoopbackRouters start(RouterConfig config, int count, String clusterName) {
        if (count < 1) {
            throw new IllegalArgumentException("need at least one router, got " + count);
        }
        List<LmWardenRouter> started = new ArrayList<>();
        try {
            if (count == 1) {
                started.add(LmWardenRouter.start(config));
            } else {
                LoopbackCluster cluster = LoopbackCluster.ofFreePorts(count, clusterName);
                for (int i = 0; i < count; i++) {
                    started.add(LmWardenRouter.start(config.with(cluster.member(i))));
                }
            }
        } catch (RuntimeException e) {
            started.forEach(LmWardenRouter::close);
            throw e;
        }
        return new LoopbackRouters(List.copyOf(started));
    }

    public List<String> urls() {
        return routers.stream().map(LmWardenRouter::url).toList();
    }

    public int size() {
        return routers.size();
    }

    @Override
    public void close() {
        for (int i = routers.size() - 1; i >= 0; i--) {
            routers.get(i).close();
        }
    }
}
