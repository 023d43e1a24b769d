package io.lmwarden.router.placement.reservation;

import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.pool.ReplicaPool;
import io.lmwarden.router.pool.ReplicaState;
import io.lmwarden.router.session.RequestFacts;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The placement feedback seam: the one way to a replica for a request that admission placed, and the one way
 * back for what became of it.
 * <pre>
 *   proxy/ProxyExchange ── submit(facts, tried) ──▶ admission/AdmissionController ── place ──▶ Placer ──▶ PlacementPolicy
 *        │                                              (KV budget: where the placement may go, or wait)
 *        ├─ openAt(facts, placement, tried) ──▶ Reservations: new Reservation, replica slot taken
 *        │                                      └─ placed(r) ──▶ listeners
 *        ├─ r.sent(t)             upstream request written
 *        ├─ r.firstByte(t, status)  prefill no longer pending; a 2xx ─ accepted(r) ──▶ listeners
 *        └─ r.finish / fail / cancel  exactly once ─ slot given back ─ ended(r, AttemptEnd) ──▶ listeners
 * </pre>
 * Listeners are told in the order they were added. Placement's own learning comes first, so that
 * everything after it (stats/RequestAccounting, the request log) reads the updated state:
 * {@link PrefixLearning} records what a replica holds once the engine accepted the request, and
 * {@link PrefillLearning} learns prefill rates from finished requests that met an idle engine.
 * A retry is a second reservation ({@code attempt() == 2}), opened before the failed first one is
 * closed as {@code retried}; when no replica is left for it, the first one ends as the request's last word.
 */
public final class Reservations {

    private final ReplicaPool pool;
    private final List<PlacementFeedback> listeners = new CopyOnWriteArrayList<>();

    public Reservations(ReplicaPool pool, PrefixIndexes prefixIndexes, PrefillRates prefillRates) {
        this.pool = pool;
        listeners.add(new PrefixLearning(prefixIndexes));
        listeners.add(new PrefillLearning(prefillRates));
    }

    /** Adds a listener after those already there. */
    public void listen(PlacementFeedback listener) {
        listeners.add(listener);
    }

    /**
     * Reserves the replica admission placed the request on, and adds it to {@code alreadyTried} (the replicas of this
     * request's attempts). Empty when that replica has left the pool meanwhile: the request is to be placed again.
     */
    public Optional<Reservation> openAt(RequestFacts facts, Placement placement, Set<String> alreadyTried, long receivedAtNanos) {
        ReplicaState state = pool.get(placement.replica().id()).orElse(null);
        if (state == null || alreadyTried.contains(state.id())) {
            return Optional.empty();
        }
        alreadyTried.add(state.id());
        Reservation r = new Reservation(facts, placement, state, alreadyTried.size(), receivedAtNanos, listeners);
        r.open();
        return Optional.of(r);
    }
}
