package io.lmwarden.router.placement;

import io.lmwarden.common.logging.LogFields;
import io.lmwarden.router.placement.filter.Candidates;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.prefix.HeldTokens;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The placement pipeline: filters the pool ({@link Candidates}: ready, serves the model, not already tried),
 * honours client pinning, and hands the rest to the current policy. A retry after a failure is marked {@code FALLBACK}. A model that
 * no replica serves is sent, unpinned, to the least loaded, so that an engine answers with its own
 * 404 and no session is pinned to a model that does not exist; each such name is logged once.
 */
public final class Placer {

    private static final Logger LOG = Logger.getLogger(Placer.class.getName());
    /** Names nobody serves that are logged (each once); a client sending ever new names is not logged past this. */
    private static final int UNSERVED_NAMES_LOGGED = 1000;

    private final Supplier<PlacementPolicy> policy;
    private final HeldTokens heldTokens;
    private final Set<String> unservedLogged = ConcurrentHashMap.newKeySet();

    public Placer(Supplier<PlacementPolicy> policy, PrefixIndexes prefixIndexes) {
        this(policy, HeldTokens.estimatesOnly(prefixIndexes));
    }

    public Placer(Supplier<PlacementPolicy> policy, HeldTokens heldTokens) {
        this.policy = policy;
        this.heldTokens = heldTokens;
    }

    public Placement place(RequestFacts facts, PoolSnapshot pool, Set<String> alreadyTried, long nowNanos)
            throws NoReplicaAvailableException {
        Optional<Placement> pinned = clientPinned(facts, pool, alreadyTried);
        Placement p;
        if (pinned.isPresent()) {
            p = pinned.get();
        } else {
            List<ReplicaView> ready = Candidates.ready(pool, alreadyTried);
            List<ReplicaView> serving = Candidates.serving(facts, ready);
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
        // The engine's own word, where its view is live and the prompt's keys are known, over any estimate.
        HeldTokens.Held held = heldTokens.held(p.replica(), facts.shape());
        return held.source() == HeldTokens.Source.EVENTS || p.expectedCachedTokens() <= 0
                ? p.withExpectedCachedTokens(held.tokens()) : p;
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
            throw new NoReplicaAvailableException(503, "the client pinned replica " + r.id()
                    + (r.drain().active() ? " is draining (DELETE /api/replicas/" + r.id() + "/drain takes it back)" : " is not ready"));
        }
        return Optional.of(new Placement(r, Decision.CLIENT_PINNED, how));
    }
}
