package io.lmwarden.router.placement.filter;

import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The replicas a request may go to, before any policy looks: those ready, not tried by an earlier attempt of the
 * same request, and serving its model. None ready is a {@link NoReplicaAvailableException} that says why.
 */
public final class Candidates {

    private Candidates() {
    }

    /** The replicas a policy could choose from for this request (ready, serving its model, not tried), for admission's alternatives. */
    public static List<ReplicaView> eligible(RequestFacts facts, PoolSnapshot pool, Set<String> alreadyTried) throws NoReplicaAvailableException {
        List<ReplicaView> ready = ready(pool, alreadyTried);
        List<ReplicaView> serving = serving(facts, ready);
        return serving.isEmpty() ? ready : serving;
    }

    /** No ready replica serves the request's model: it is placed unpinned, and takes no part in admission. */
    public static boolean unserved(RequestFacts facts, PoolSnapshot pool) {
        boolean anyReady = false;
        for (ReplicaView r : pool.replicas()) {
            if (r.ready()) {
                anyReady = true;
                if (mayServe(r, facts.model())) {
                    return false;
                }
            }
        }
        return anyReady;
    }

    public static List<ReplicaView> ready(PoolSnapshot pool, Set<String> alreadyTried) throws NoReplicaAvailableException {
        // Loops, not streams: this runs for every request over every replica.
        List<ReplicaView> ready = new ArrayList<>(pool.replicas().size());
        for (ReplicaView r : pool.replicas()) {
            if (r.ready() && !alreadyTried.contains(r.id())) {
                ready.add(r);
            }
        }
        if (ready.isEmpty()) {
            if (pool.replicas().isEmpty()) {
                throw new NoReplicaAvailableException(503, "no replica is known yet; the router is waiting for discovery");
            }
            throw new NoReplicaAvailableException(503, alreadyTried.isEmpty()
                    ? "no ready replica among " + pool.replicas().size() + "; retry later"
                    : "no other ready replica to retry on after " + String.join(",", alreadyTried) + " failed");
        }
        return ready;
    }

    /**
     * Whether a request for {@code model} may go to the replica: its {@code /v1/models} lists the name, or its list is not
     * read yet (it counts as serving every name). Not "the replicas that surely serve it first": while the lists are read
     * one after the other, as when a router starts, that would take a session's home out of its choices and move it.
     */
    private static boolean mayServe(ReplicaView r, String model) {
        return model.isEmpty() || r.servedModels().serves(model);
    }

    /** The ready replicas that may serve the request's model name; empty when the lists known say that nobody does. */
    public static List<ReplicaView> serving(RequestFacts facts, List<ReplicaView> ready) {
        List<ReplicaView> serving = new ArrayList<>(ready.size());
        for (ReplicaView r : ready) {
            if (mayServe(r, facts.model())) {
                serving.add(r);
            }
        }
        return serving.size() == ready.size() ? ready : serving;
    }
}
