package io.lmwarden.router.placement;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Filters the pool (ready, serves the model, not already tried), honours client pinning, and hands
 * the rest to the current policy. A retry after a failure is marked {@code FALLBACK}. A model that
 * no replica serves is sent, unpinned, to the least loaded, so that an engine answers with its own
 * 404 and no session is pinned to a model that does not exist; each such name is logged once.
 */
public final class Placer {

    private static final Logger LOG = Logger.getLogger(Placer.class.getName());
    /** Names nobody serves that are logged (each once); a client sending ever new names is not logged past this. */
    private static final int UNSERVED_NAMES_LOGGED = 1000;

    private final Supplier<PlacementPolicy> policy;
    private final PrefixIndexes prefixIndexes;
    private final Set<String> unservedLogged = ConcurrentHashMap.newKeySet();

    public Placer(Supplier<PlacementPolicy> policy, PrefixIndexes prefixIndexes) {
        this.policy = policy;
        this.prefixIndexes = prefixIndexes;
    }

    public Placement place(RequestFacts facts, PoolSnapshot pool, Set<String> alreadyTried, long nowNanos)
            throws NoReplicaAvailableException {
        Optional<Placement> pinned = clientPinned(facts, pool, alreadyTried);
        Placement p;
        if (pinned.isPresent()) {
            p = pinned.get();
        } else {
            List<ReplicaView> ready = ready(pool, alreadyTried);
            List<ReplicaView> serving = serving(facts, ready);
            if (serving.isEmpty()) {
                logUnserved(facts.model(), ready);
                ReplicaView any = LoadOrder.least(ready, LoadOrder.QUEUE_SCORE);
                return new Placement(any, Decision.NEW, "no replica serves model '" + facts.model() + "'; the engine answers (not pinned)");
            }
            p = policy.get().place(new PlacementRequest(facts, serving, pool, nowNanos));
            if (!alreadyTried.isEmpty()) {
                p = p.withDecision(Decision.FALLBACK, "retry after " + String.join(",", alreadyTried) + " failed; " + p.reason());
            }
        }
        // What the chosen replica should hold, for question 2 ("did it reach the replica with its prefix?").
        return p.expectedCachedTokens() > 0 ? p : p.withExpectedCachedTokens(prefixIndexes.heldTokens(p.replica(), facts.shape()));
    }

    /** The replicas a policy could choose from for this request (ready, serving its model), for admission's alternatives. */
    public static List<ReplicaView> eligible(RequestFacts facts, PoolSnapshot pool) throws NoReplicaAvailableException {
        List<ReplicaView> ready = ready(pool, Set.of());
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

    private void logUnserved(String model, List<ReplicaView> ready) {
        int logged = unservedLogged.size();
        if (logged > UNSERVED_NAMES_LOGGED || unservedLogged.contains(model)) {
            return;
        }
        if (logged == UNSERVED_NAMES_LOGGED) {
            if (unservedLogged.add("")) {
                LogFields.warn(LOG, "more model names that no replica serves; not logged any more", "logged", logged);
            }
            return;
        }
        if (unservedLogged.add(model)) {
            Set<String> served = new TreeSet<>();
            ready.forEach(r -> served.addAll(r.servedModels().modelOf().keySet()));
            LogFields.warn(LOG, "no replica serves this model name; its requests go unpinned to the least-loaded replica, "
                    + "whose engine answers (logged once per name)", "model", model, "served", String.join(",", served));
        }
    }

    private static List<ReplicaView> ready(PoolSnapshot pool, Set<String> alreadyTried) throws NoReplicaAvailableException {
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
    private static List<ReplicaView> serving(RequestFacts facts, List<ReplicaView> ready) {
        List<ReplicaView> serving = new ArrayList<>(ready.size());
        for (ReplicaView r : ready) {
            if (mayServe(r, facts.model())) {
                serving.add(r);
            }
        }
        return serving.size() == ready.size() ? ready : serving;
    }

    private static Optional<Placement> clientPinned(RequestFacts facts, PoolSnapshot pool, Set<String> alreadyTried)
            throws NoReplicaAvailableException {
        Optional<ReplicaView> target;
        String how;
        if (facts.pinnedReplica().isPresent()) {
            String id = facts.pinnedReplica().get();
            target = pool.byId(id);
            how = "X-LMW-Replica: " + id;
            if (target.isEmpty()) {
                throw new NoReplicaAvailableException(400, "X-LMW-Replica names replica '" + id + "', which does not exist; known: "
                        + pool.replicas().stream().map(ReplicaView::id).collect(Collectors.joining(", ")));
            }
        } else if (facts.dataParallelRank().isPresent()) {
            int rank = facts.dataParallelRank().get();
            target = pool.byRank(rank);
            how = "X-data-parallel-rank: " + rank;
            if (target.isEmpty()) {
                throw new NoReplicaAvailableException(400, "X-data-parallel-rank " + rank + " is out of range: there are "
                        + pool.replicas().size() + " replicas (ranks 0.." + (pool.replicas().size() - 1) + ")");
            }
        } else {
            return Optional.empty();
        }
        ReplicaView r = target.get();
        if (!r.ready() || alreadyTried.contains(r.id())) {
            throw new NoReplicaAvailableException(503, "the client pinned replica " + r.id() + " is not ready");
        }
        return Optional.of(new Placement(r, Decision.CLIENT_PINNED, how));
    }
}
