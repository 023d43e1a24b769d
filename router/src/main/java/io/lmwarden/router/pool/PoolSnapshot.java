package io.lmwarden.router.pool;

import java.util.List;
import java.util.Optional;

/** The whole pool at one instant, replicas in id order. */
public record PoolSnapshot(List<ReplicaView> replicas, long takenAtNanos) {

    public PoolSnapshot {
        replicas = List.copyOf(replicas);
    }

    public List<ReplicaView> ready() {
        return replicas.stream().filter(ReplicaView::ready).toList();
    }

    public Optional<ReplicaView> byId(String id) {
        return replicas.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /** The n-th replica in id order (vLLM's {@code X-data-parallel-rank}). */
    public Optional<ReplicaView> byRank(int rank) {
        return rank >= 0 && rank < replicas.size() ? Optional.of(replicas.get(rank)) : Optional.empty();
    }
}
