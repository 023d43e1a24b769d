package io.lmwarden.router.placement.pins;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementRequest;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Where each session lives, and the only writer of the pins ({@link SessionPins}): the home step every
 * session-pinning policy takes first, the moves policies and admission decide on, and the releases of replicas
 * that leave. The step: find the session's home; a session without one, or whose home cannot take requests, is
 * placed as new and pinned; a home at the spill cap gives the step to a less busy replica and the session is
 * re-pinned there. What is left, a home under the cap, is the policy's own choice ({@link Step#home()}), and a move
 * it decides on goes through {@link #move} so that it is pinned the same way.
 */
public final class SessionHomes {

    /** What a policy contributes to the shared step. */
    public interface Choices {
        /** Where a session without a usable home goes; {@code why} says which case it is. */
        Placement forNewSession(List<ReplicaView> candidates, String why);

        /** The replica a step over the spill cap would go to, among the others (never empty). */
        ReplicaView overCapTarget(ReplicaView home, List<ReplicaView> others);

        /** What the policy expects the replica to hold of this prompt (0 when it cannot tell). */
        int expectedCachedTokens(ReplicaView r);
    }

    /** Either the step decided, or the session is at a home under the cap and {@code others} could take it. */
    public record Step(Optional<Placement> decided, ReplicaView home, List<ReplicaView> others) {
    }

    private final SessionPins table;
    private final NewSessionFilter newSessions;

    public SessionHomes(SessionPins table) {
        this(table, NewSessionFilter.ALL);
    }

    /** @param newSessions where a session without a usable home may go, before the policy chooses */
    public SessionHomes(SessionPins table, NewSessionFilter newSessions) {
        this.table = table;
        this.newSessions = newSessions;
    }

    /** @param threshold in-flight requests at which the home gives a step away */
    public Step step(PlacementRequest request, int threshold, Choices choices) {
        RequestFacts f = request.facts();
        Optional<String> home = table.lookup(f.modelKey(), f.sessionKey().value(), request.nowNanos());
        Optional<ReplicaView> homeView = home.flatMap(h -> byId(request.candidates(), h));
        if (homeView.isEmpty()) {
            // A home that drains is left at this step, announced as such (a home that failed or left is just gone).
            Optional<String> draining = home.filter(h -> request.pool().byId(h).map(r -> r.drain().active()).orElse(false));
            String why = draining.map(h -> "home " + h + " is draining").orElse(home.map(h -> "home " + h + " unavailable").orElse("new session"));
            NewSessionFilter.Choice allowed = newSessions.choose(request);
            Placement p = choices.forNewSession(allowed.candidates(), allowed.why().isEmpty() ? why : why + "; " + allowed.why());
            if (draining.isPresent()) {
                p = p.withDecision(Decision.DRAIN, p.reason()).movedFrom(draining.get());
            }
            Placement claimed = claim(request, home, p);
            newSessions.placed(request, claimed.replica());
            return new Step(Optional.of(claimed), null, List.of());
        }
        ReplicaView h = homeView.get();
        List<ReplicaView> others = new ArrayList<>(request.candidates().size());
        for (ReplicaView r : request.candidates()) {
            if (r != h) {
                others.add(r);
            }
        }
        // The step would push the home over its threshold: move, but only to somewhere less busy.
        if (h.inFlight() >= threshold && !others.isEmpty()) {
            // Where it may spill is where it could start afresh (a LoRA adapter's session: where its adapter runs or fits).
            List<ReplicaView> spillable = allowedForNew(f, others, request.pool(), request.nowNanos());
            ReplicaView target = choices.overCapTarget(h, spillable);
            if (target.inFlight() < h.inFlight()) {
                Placement p = new Placement(target, Decision.SPILL, "home " + h.id() + " has " + h.inFlight()
                        + " in flight (spill threshold " + threshold + ") → " + target.id(), choices.expectedCachedTokens(target));
                return new Step(Optional.of(move(request, h, p)), h, others);
            }
        }
        return new Step(Optional.empty(), h, others);
    }

    /**
     * Of {@code candidates}, those a session without a home may go to ({@link NewSessionFilter}: a LoRA adapter's
     * replicas), for admission's own alternatives when the policy's choice has no room; all of them when the filter
     * keeps all.
     */
    public List<ReplicaView> allowedForNew(RequestFacts facts, List<ReplicaView> candidates, PoolSnapshot pool, long nowNanos) {
        return candidates.isEmpty() ? candidates
                : newSessions.choose(new PlacementRequest(facts, candidates, pool, nowNanos)).candidates();
    }

    /** The policy moves the session off its home: re-pinned where it went. */
    public Placement move(PlacementRequest request, ReplicaView home, Placement p) {
        pin(request, p.replica());
        return p.movedFrom(home.id());
    }

    /**
     * Pins a session that had no usable home. Another router may have placed the same session a
     * moment earlier: then the pin that holds is the other's, and this step follows it there. A pin
     * settled at once (one router) decides here; one the cluster has still to settle goes with the
     * placement ({@link Placement#pendingClaim()}): the request waits for it without holding its thread,
     * and when another router's pin won, it is placed again, where {@link #step} now finds that pin (a winner
     * this router cannot reach is an unavailable home, re-claimed from it).
     */
    private Placement claim(PlacementRequest request, Optional<String> previous, Placement p) {
        RequestFacts f = request.facts();
        CompletableFuture<String> winner = table.claim(f.modelKey(), f.sessionKey().value(), previous, p.replica().id(), request.nowNanos())
                .toCompletableFuture();
        if (!winner.isDone()) {
            return p.claimPending(winner);
        }
        String w;
        try {
            w = winner.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        if (w.equals(p.replica().id())) {
            return p;
        }
        Optional<ReplicaView> theirs = byId(request.candidates(), w);
        if (theirs.isEmpty()) {
            // The other router's choice cannot take requests from here: ours stands, and is the pin from now on.
            pin(request, p.replica());
            return p;
        }
        return new Placement(theirs.get(), Decision.STICKY, "another router pinned this session to " + w + " first");
    }

    private static Optional<ReplicaView> byId(List<ReplicaView> replicas, String id) {
        for (ReplicaView r : replicas) {
            if (r.id().equals(id)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    private void pin(PlacementRequest request, ReplicaView r) {
        table.pin(request.facts().modelKey(), request.facts().sessionKey().value(), r.id(), request.nowNanos());
    }

    /** Admission sent the session's step elsewhere than the policy chose (over its KV budget there): it lives there now. */
    public void moved(RequestFacts facts, String replicaId, long nowNanos) {
        table.pin(facts.modelKey(), facts.sessionKey().value(), replicaId, nowNanos);
    }

    /** The replica left the pool or stopped being ready: its sessions have no home any more. Returns how many. */
    public int releaseReplica(String replicaId) {
        return table.release(replicaId);
    }

    /** Forgets sessions idle longer than the pins' timeout; returns how many. Called on a timer. */
    public int expireIdle(long nowNanos) {
        return table.expireIdle(nowNanos);
    }
}
