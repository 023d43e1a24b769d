package io.lmwarden.router.placement;

import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

/**
 * The placement feedback seam: the one way in for a request that wants a replica, and the one way
 * back for what became of it.
 * <pre>
 *   proxy/ProxyExchange ── open(facts, snapshot, tried) ──▶ Reservations ── place ──▶ Placer ──▶ PlacementPolicy
 *        │                                                     │ new Reservation, replica slot taken
 *        │                                                     └─ placed(r) ──▶ listeners
 *        ├─ r.sent(t)             upstream request written
 *        ├─ r.firstByte(t, status)  prefill no longer pending; a 2xx ─ accepted(r) ──▶ listeners
 *        └─ r.finish / fail / cancel  exactly once ─ slot given back ─ ended(r, AttemptEnd) ──▶ listeners
 * </pre>
 * Listeners are told in the order they were added. Placement's own learning comes first, so that
 * everything after it (stats/RequestAccounting, admission control) reads the updated state:
 * {@link PrefixLearning} records what a replica holds once the engine accepted the request, and
 * {@link PrefillLearning} learns prefill rates from finished requests that met an idle engine.
 * A retry is a second reservation ({@code attempt() == 2}), opened before the failed first one is
 * closed as {@code retried}; when no replica is left for it, the first one ends as the request's last word.
 */
public final class Reservations {

    private final Placer placer;
    private final ReplicaPool pool;
    private final List<PlacementFeedback> listeners = new CopyOnWriteArrayList<>();

    public Reservations(Placer placer, ReplicaPool pool, PrefixIndexes prefixIndexes, PrefillRates prefillRates) {
        this.placer = placer;
        this.pool = pool;
        listeners.add(new PrefixLearning(prefixIndexes));
        listeners.add(new PrefillLearning(prefillRates));
    }

    /** Adds a listener after those already there. */
    public void listen(PlacementFeedback listener) {
        listeners.add(listener);
    }

    /**
     * Reserves the replica a placement already chose (admission control decides where a request may
     * go before it is sent); when that replica has left the pool meanwhile, places the request afresh.
     */
    public Reservation openAt(RequestFacts facts, Placement placement, LongFunction<PoolSnapshot> snapshots, Set<String> alreadyTried,
                              long nowNanos, long receivedAtNanos) throws NoReplicaAvailableException {
        ReplicaState state = pool.get(placement.replica().id()).orElse(null);
        if (state == null || alreadyTried.contains(state.id())) {
            // Only then is a snapshot needed: building one for every request would cost a pass over the pool.
            return open(facts, snapshots.apply(nowNanos), alreadyTried, nowNanos, receivedAtNanos);
        }
        alreadyTried.add(state.id());
        Reservation r = new Reservation(facts, placement, state, alreadyTried.size(), receivedAtNanos, listeners);
        r.open();
        return r;
    }

    /**
     * Places the request and reserves the replica. {@code alreadyTried} holds the replicas of earlier
     * attempts of the same request; the chosen one is added to it.
     */
    public Reservation open(RequestFacts facts, PoolSnapshot snapshot, Set<String> alreadyTried, long nowNanos, long receivedAtNanos)
            throws NoReplicaAvailableException {
        int attempt = alreadyTried.size() + 1;
        Set<String> excluded = new HashSet<>(alreadyTried);
        while (true) {
            Placement p = placer.place(facts, snapshot, excluded, nowNanos);
            ReplicaState state = pool.get(p.replica().id()).orElse(null);
            excluded.add(p.replica().id());
            if (state == null) {
                // Left the pool between the snapshot and now: choose again among the others.
                continue;
            }
            alreadyTried.add(state.id());
            Reservation r = new Reservation(facts, p, state, attempt, receivedAtNanos, listeners);
            r.open();
            return r;
        }
    }
}
