package io.lmwarden.router.testing;

import io.lmwarden.router.config.ServerSettings;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.LmWardenRouter;
import io.lmwarden.router.config.ClusterSettings;
import io.lmwarden.router.config.RouterConfig;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Several routers in one JVM, clustered over loopback only (JGroups TCP bound to 127.0.0.1, a static
 * member list, no multicast), in front of one {@link SimPool}. Slot i keeps its cluster port, so a
 * router started again in a slot rejoins as the same member address.
 */
public final class ClusteredRouters implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final SimPool sims;
    private final UnaryOperator<RouterConfig> tweak;
    private final List<Integer> clusterPorts;
    private final List<LmWardenRouter> routers = new ArrayList<>();

    private ClusteredRouters(SimPool sims, UnaryOperator<RouterConfig> tweak, List<Integer> clusterPorts) {
        this.sims = sims;
        this.tweak = tweak;
        this.clusterPorts = clusterPorts;
    }

    /** {@code slots} members may exist (their ports are listed to each); {@code started} of them start now. */
    public static ClusteredRouters start(SimPool sims, int slots, int started, UnaryOperator<RouterConfig> tweak) {
        ClusteredRouters c = new ClusteredRouters(sims, tweak, io.lmwarden.common.net.LoopbackPorts.freePairs(slots));
        for (int i = 0; i < slots; i++) {
            c.routers.add(null);
        }
        for (int i = 0; i < started; i++) {
            c.startSlot(i);
        }
        return c;
    }

    /** Starts (or restarts) the router of slot i; returns once it serves (it has joined and learned the pins). */
    public LmWardenRouter startSlot(int i) {
        List<String> members = clusterPorts.stream().map(p -> "127.0.0.1:" + p).toList();
        RouterConfig config = RouterConfig.forReplicas(sims.routerEntries()).with(ServerSettings.HOST, "127.0.0.1")
                .withScrapeInterval(Duration.ofMillis(100))
                .with(ClusterSettings.single().withStatic(members, clusterPorts.get(i)));
        LmWardenRouter r = LmWardenRouter.start(tweak.apply(config));
        routers.set(i, r);
        return r;
    }

    public void stopSlot(int i) {
        LmWardenRouter r = routers.set(i, null);
        if (r != null) {
            r.close();
        }
    }

    public String url(int i) {
        return routers.get(i).url();
    }

    public int slots() {
        return routers.size();
    }

    /** The router's {@code cluster} object from /api/replicas. */
    public JsonNode clusterView(int i) {
        return replicas(i).path("cluster");
    }

    public JsonNode replicas(int i) {
        Http.Reply r = new Http().get(url(i) + "/api/replicas");
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(r.body(), e);
        }
    }

    /** Waits until every running router sees {@code members} members that agree, and fresh metrics from every replica. */
    public void awaitAgreement(int members, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (int i = 0; i < routers.size(); i++) {
                if (routers.get(i) == null) {
                    continue;
                }
                JsonNode rep = replicas(i);
                JsonNode view = rep.path("cluster");
                last = view.toString();
                boolean fresh = rep.toString().contains("\"metricsFresh\":true") && !rep.toString().contains("\"metricsFresh\":false");
                all &= fresh && view.path("members").size() == members && view.path("agree").asBoolean();
            }
            if (all) {
                return;
            }
            RouterUnderTest.sleep(100);
        }
        throw new IllegalStateException("the routers did not agree on " + members + " members within " + within + "; last view " + last);
    }

    public SimPool sims() {
        return sims;
    }

    @Override
    public void close() {
        for (int i = 0; i < routers.size(); i++) {
            stopSlot(i);
        }
        sims.close();
    }
}
