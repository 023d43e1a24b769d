package io.lmwarden.router.placement;

import io.lmwarden.router.placement.filter.Candidates;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The placement pipeline: filters the pool ({@link Candidates}: ready, serves the model, not already tried),
 * honours client pinning, and hands the rest to the current policy. A retry after a failure is marked {@code FALLBACK}. A model that
 * no replica lists is sent, unpinned, to the least loaded, so that an engine answers with its own
 * 404 and no session is pinned to a model that does not exist.
 */
public final class Placer {

    private final Supplier<PlacementPolicy> policy;
    private final PrefixIndexes prefixIndexes;

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
            List<ReplicaView> ready = Candidates.ready(pool, alreadyTried);
            List<ReplicaView> serving = Candidates.serving(facts, ready);
            if (serving.isEmpty()) {
                ReplicaView any = LoadOrder.least(ready, LoadOrder.QUEUE_SCORE);
                return new Placement(any, Decision.NEW, "no replica lists model '" + facts.model() + "'; the engine answers (not pinned)");
            }
            p = policy.get().place(new PlacementRequest(facts, serving, pool, nowNanos));
            if (!alreadyTried.isEmpty()) {
                p = p.withDecision(Decision.FALLBACK, "retry after " + String.join(",", alreadyTried) + " failed; " + p.reason());
            }
        }
        // What the chosen replica should hold, for question 2 ("did it reach the replica with its prefix?").
        return p.expectedCachedTokens() > 0 ? p : p.withExpectedCachedTokens(prefixIndexes.heldTokens(p.replica(), facts.shape()));
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
