package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.filter.Candidates;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * KV-budgeted session admission: the stage of placement every attempt of a proxied request passes, its first and
 * its retries, before a replica is reserved. It keeps each replica's resident sessions' working sets inside its KV
 * budget, but only while the pool thrashes and holding residents pays ({@link #engagedAt}; {@link ThrashSignal}: residents missing their own cached prefix, an
 * engine's KV full with requests waiting); otherwise every step goes where the policy sends it, as without admission,
 * and only the ledger is kept. Engaged: a step of a resident session goes where the policy sends it (home) at once;
 * a step of a session that is not resident is admitted where the policy would place it if its working set fits that
 * replica's budget — paused residents there giving up their residency by cost if need be ({@link Victims}) — else on
 * the least loaded replica where it fits (unless its home still holds its prefix), else — when a replica's compute
 * would otherwise idle — where paused residents give way; otherwise it waits: sessions in progress first, the least
 * served first, then newcomers in arrival order. A request that waits holds the replica it waits for; those behind it
 * may be admitted elsewhere meanwhile (backfill), never into that room. A newcomer whose predicted wait exceeds the queue timeout is told at
 * once; a step of a session in progress is never turned away (past the timeout, or with the queue full, it is
 * admitted over the budget). Residency lapses by cost, never by a timer: under pressure (hysteresis, {@link Pressure})
 * paused residents unlikely to return within the break-even — the time in which holding a session's KV costs what
 * recomputing it would ({@link #breakEvenNanos}) — give up their residency. The budget arithmetic is the
 * {@link ResidencyTable}'s ledger's.
 *
 * <p>All state changes happen under this object's lock; waiters are told outside it.
 */
public final class AdmissionController {

    /** A request that may have to wait. Both calls come from any thread, outside the controller's lock. */
    public interface Waiter {
        void admitted(Admission admission);

        void rejected(Rejection rejection);
    }

    /** Go ahead: the placement, the hold on the session's residency, and how long the request waited. */
    public record Admission(Placement placement, Ticket ticket, long waitedNanos) {
    }

    /** Not admitted, why, and when to come back. */
    public record Rejection(Reason reason, String message, long retryAfterSeconds) {

        /**
         * The queue was full; the request waited the whole queue timeout; its predicted wait exceeded the queue timeout
         * (told at once instead of after it); no replica is ready any more.
         */
        public enum Reason {
            QUEUE_FULL("queue_full"), QUEUE_TIMEOUT("queue_timeout"), PREDICTED_WAIT("predicted_wait"), NO_REPLICA("no_replica");

            private final String label;

            Reason(String label) {
                this.label = label;
            }

            /** What {@link AdmissionObserver#rejected} is told. */
            public String label() {
                return label;
            }
        }
    }

    /** One admitted request's hold on its session's residency; {@link #close} exactly once, when the request ends. */
    public interface Ticket {
        void close();

        Ticket NONE = () -> {
        };
    }

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** An engine whose KV cache is this full of running requests, with requests waiting, thrashes. */
    static final double KV_FULL = 0.95;
    /**
     * The budget applies only while the pool's median pause is shorter than the break-even divided by this: holding a
     * resident through a pause as long as the break-even saves nothing, and costs what the break-even leaves out — a
     * paused resident's reserved KV runs no sequence, so the engines batch fewer. With pauses about as long as the
     * break-even (10 s on the reference replica) engaged admission lost 13 % of tokens/min to affinity at 16–48
     * sessions (busy 3.7 of 4); with pauses of a fifth of it, it won 28–35 %.
     */
    static final long HOLDING_PAYS_SHARE_OF_BREAK_EVEN = 2;

    private final Placer placer;
    private final LongFunction<PoolSnapshot> snapshot;
    private final Supplier<PlacementPolicy> policy;
    private final SessionHomes homes;
    private final PrefixIndexes prefixIndexes;
    private final AdmissionObserver observer;
    private final LongSupplier clock;
    private final PeerResidents peers;
    private final ResidencyTable residencies;
    private final PrefillRates prefillRates;
    private final ReturnTimes returnTimes;
    private final AttainedService service;
    private final ThrashSignal thrash;
    private final Victims victims;
    private final WaitForecast forecast = new WaitForecast();
    /** Per replica, the break-even of its last look (updated by the pump): the thrash signal reads it per step. */
    private final Map<String, Long> breakEvens = new HashMap<>();
    private final Map<Waiter, AdmissionQueue.Entry<Pending>> waiting = new HashMap<>();
    /** Admitted requests by their facts (one object per request), until the request ends. */
    private final Map<RequestFacts, Ticket> admitted = new IdentityHashMap<>();
    private final AdmissionTotals totals = new AdmissionTotals();
    private volatile AdmissionRules rules;
    private final AdmissionQueue<Pending> queue;

    public AdmissionController(AdmissionRules rules, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionHomes homes, PrefixIndexes prefixIndexes, PrefillRates prefillRates,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock) {
        this(rules, placer, snapshot, policy, homes, prefixIndexes, prefillRates, defaultCapacityTokens, observer, clock, PeerResidents.NONE);
    }

    /**
     * {@code peers}: the sessions the other routers of the same cluster hold resident. Their blocks come
     * out of this router's share of each replica's budget (each session and each shared prefix once), so
     * that a replica has one budget however many routers admit to it; and a session resident through
     * another router is resident here too, since its steps reach the routers in any order.
     */
    public AdmissionController(AdmissionRules rules, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionHomes homes, PrefixIndexes prefixIndexes, PrefillRates prefillRates,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock,
                               PeerResidents peers) {
        this.peers = peers;
        this.rules = rules;
        this.placer = placer;
        this.snapshot = snapshot;
        this.policy = policy;
        this.homes = homes;
        this.prefixIndexes = prefixIndexes;
        this.observer = observer;
        this.clock = clock;
        this.residencies = new ResidencyTable(rules.kvBudget(), defaultCapacityTokens, peers);
        this.queue = new AdmissionQueue<>(rules.queueMax(), rules.queueTimeoutNanos());
        this.prefillRates = prefillRates;
        this.returnTimes = new ReturnTimes(rules.pausePriorNanos());
        this.service = new AttainedService(rules.serviceHalfLifeNanos());
        this.thrash = new ThrashSignal(rules.alwaysEngaged(), rules.calmNanos());
        this.victims = new Victims(returnTimes, service);
    }

    /**
     * A queued attempt. {@code tried}: the replicas earlier attempts failed on (empty for a first attempt);
     * {@code again}: it holds its admission already and is placed again (a retry), so its step is counted once;
     * {@code firstChoice}: where placement sent it before it had to wait, or null. That placement may
     * already have re-pinned the session (its home drains, it spilled, it is new), so when the attempt is admitted there
     * later, placement sees the new home and says {@code STICKY}: the step is announced with its first decision instead.
     */
    private record Pending(RequestFacts facts, String session, WorkingSet workingSet, Waiter waiter, Set<String> tried, boolean again,
                           boolean inProgress, FirstChoice firstChoice) {
    }

    /** The first placement an attempt was given, before or while it waits: the one that may have re-pinned its session. */
    private static final class FirstChoice {
        private Placement value;

        void offer(Placement p) {
            if (value == null) {
                value = p;
            }
        }
    }


    public AdmissionRules rules() {
        return rules;
    }

    /** Switches admission on or off at run time; switching off admits everything waiting on the next pump. */
    public void setEnabled(boolean on) {
        rules = rules.withEnabled(on);
        pump();
    }

    public boolean enabled() {
        return rules.enabled();
    }

    /**
     * Admits the attempt now (returns its admission), or queues it, or rejects it (returns empty; the waiter is told,
     * a rejection before this returns). A request that holds its admission already and asks again — a retry, with
     * the replicas it failed on in {@code alreadyTried} — is placed within the budget too.
     */
    public Optional<Admission> submit(RequestFacts facts, Set<String> alreadyTried, Waiter waiter) throws NoReplicaAvailableException {
        Rejection rejection;
        synchronized (this) {
            long now = clock.getAsLong();
            AdmissionRules s = rules;
            boolean pinnedByClient = facts.pinnedReplica().isPresent() || facts.dataParallelRank().isPresent();
            PoolSnapshot snap = snapshot.apply(now);
            // A model nobody serves gets the engine's 404 at once: it holds no KV budget and never waits for any.
            if (!s.enabled() || pinnedByClient || Candidates.unserved(facts, snap)) {
                return Optional.of(new Admission(placer.place(facts, snap, alreadyTried, now), Ticket.NONE, 0));
            }
            String session = sessionOf(facts);
            WorkingSet ws = WorkingSet.of(facts);
            boolean again = admitted.containsKey(facts);
            if (!again) {
                returnTimes.arrived(session, now);
            }
            boolean engaged = engagedAt(now);
            FirstChoice first = new FirstChoice();
            if (again) {
                // Its step is under way already: it moves within the budget, or waits for room ahead of newcomers.
                Optional<Placement> p = engaged ? placeWithinBudget(facts, session, ws, alreadyTried, true, snap, now, first, new HashSet<>())
                        : Optional.of(placeAsPolicy(facts, session, ws, alreadyTried, true, snap, now));
                if (p.isPresent()) {
                    totals.admittedAtOnce.incrementAndGet();
                    return Optional.of(new Admission(p.get(), admitted.get(facts), 0));
                }
            } else if (residencies.isResident(session) || peers.holds(session) || !engaged) {
                // A resident goes home at once; so does everyone while the pool does not thrash (the ledger is kept).
                Placement p = placeAsPolicy(facts, session, ws, alreadyTried, false, snap, now);
                totals.admittedAtOnce.incrementAndGet();
                return Optional.of(new Admission(p, ticket(facts, session), 0));
            }
            // A session in progress queues before newcomers; so does a retry.
            boolean inProgress = again || returnTimes.knows(session);
            if (!again && (inProgress ? !queue.hasReturning() : queue.isEmpty())) {
                Optional<Placement> p = placeWithinBudget(facts, session, ws, Set.of(), false, snap, now, first, new HashSet<>());
                if (p.isPresent()) {
                    totals.admittedAtOnce.incrementAndGet();
                    return Optional.of(new Admission(p.get(), ticket(facts, session), 0));
                }
            }
            thrash.noRoom(now);
            long predicted = inProgress ? -1 : forecast.predictedNanos(queue.size());
            if (predicted > s.queueTimeoutNanos()) {
                totals.rejected.incrementAndGet();
                totals.rejectedAtOnce.incrementAndGet();
                long seconds = Math.max(1, Math.min(600, (predicted + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND));
                rejection = new Rejection(Rejection.Reason.PREDICTED_WAIT, "every replica's KV cache budget is taken by sessions in "
                        + "progress, and the wait for room is predicted at " + seconds + " s, longer than the queue timeout (queueTimeout); "
                        + "retry after the Retry-After delay", seconds);
            } else {
                Optional<AdmissionQueue.Entry<Pending>> entry = queue.offer(new Pending(facts, session, ws, waiter, Set.copyOf(alreadyTried),
                        again, inProgress, first), now, inProgress, service.orderKey(session));
                if (entry.isPresent()) {
                    waiting.put(waiter, entry.get());
                    totals.queued.incrementAndGet();
                    return Optional.empty();
                }
                if (inProgress) {
                    // A step of a session in progress is never turned away: over the budget, where the policy sends it.
                    totals.admittedOverBudget.incrementAndGet();
                    Placement p = placeAsPolicy(facts, session, ws, alreadyTried, again, snap, now);
                    Placement over = p.withDecision(p.decision(), p.reason() + "; admission queue full, a session in progress is admitted over the KV budget");
                    return Optional.of(new Admission(over, again ? admitted.get(facts) : ticket(facts, session), 0));
                }
                totals.rejected.incrementAndGet();
                rejection = new Rejection(Rejection.Reason.QUEUE_FULL, "the router's admission queue is full (" + s.queueMax()
                        + " requests, queueMax): every replica's KV cache budget is taken by running sessions; retry after the "
                        + "Retry-After delay", retryAfterSeconds(now));
            }
        }
        observer.rejected(rejection.reason().label());
        waiter.rejected(rejection);
        return Optional.empty();
    }

    /** The waiter's client went away: it leaves the queue at once. */
    public void cancel(Waiter waiter) {
        boolean removed;
        synchronized (this) {
            AdmissionQueue.Entry<Pending> e = waiting.remove(waiter);
            removed = e != null && queue.remove(e);
        }
        if (removed) {
            observer.rejected("client_gone");
            pump();
        }
    }

    /**
     * Reads the engines' evidence, relieves replicas under pressure, times out newcomers, admits sessions in progress
     * that waited the queue timeout over the budget, and admits in queue order whoever fits, a waiting request keeping
     * the replica it waits for from those behind it (backfill).
     * Called on a timer and whenever a request ends.
     */
    public void pump() {
        List<Runnable> tell = new ArrayList<>();
        synchronized (this) {
            long now = clock.getAsLong();
            AdmissionRules s = rules;
            PoolSnapshot snap = snapshot.apply(now);
            returnTimes.settleEnds(now);
            for (ReplicaView r : snap.replicas()) {
                if (!r.ready()) {
                    continue;
                }
                breakEvens.put(r.id(), breakEvenNanos(r));
                if (r.metricsFresh() && r.metrics() != null && r.kvCacheUsage() >= KV_FULL && r.metrics().waiting() > 0) {
                    thrash.kvFullWithQueue(now);
                }
                relievePressure(r, null, now);
            }
            boolean engaged = s.enabled() && engagedAt(now);
            for (AdmissionQueue.Entry<Pending> e : queue.removeExpired(now)) {
                waiting.remove(e.waiter().waiter());
                totals.rejected.incrementAndGet();
                long waitedSeconds = (now - e.enqueuedAtNanos()) / NANOS_PER_SECOND;
                Rejection r = new Rejection(Rejection.Reason.QUEUE_TIMEOUT, "the request waited " + waitedSeconds + " s for a replica with "
                        + "room in its KV cache budget (queueTimeout); the pool is saturated, retry after the Retry-After delay",
                        retryAfterSeconds(now));
                tell.add(() -> {
                    observer.rejected(r.reason().label());
                    e.waiter().waiter().rejected(r);
                });
            }
            for (AdmissionQueue.Entry<Pending> e : queue.overdue(now)) {
                admitFromQueue(e, false, s, now, tell, new HashSet<>());
            }
            // In queue order; one that must wait holds the replica it waits for, and those behind it may take room
            // only elsewhere (backfill): a session waiting for its warm home does not keep a newcomer from a replica
            // with room, and no one behind takes the room it waits for. Newcomers stay first come, first served: the
            // first that must wait ends the scan.
            Set<String> heldFor = new HashSet<>();
            long ready = snap.replicas().stream().filter(ReplicaView::ready).count();
            for (AdmissionQueue.Entry<Pending> e : queue.inOrder()) {
                if (heldFor.size() >= ready) {
                    break;
                }
                boolean newcomer = !e.waiter().inProgress();
                if (!admitFromQueue(e, engaged, s, now, tell, heldFor) && newcomer) {
                    break;
                }
            }
        }
        tell.forEach(Runnable::run);
    }

    /**
     * Admits the queued request if it may go now ({@code withinBudget}: only where its working set fits; else where the
     * policy sends it); returns whether it left the queue.
     */
    private boolean admitFromQueue(AdmissionQueue.Entry<Pending> e, boolean withinBudget, AdmissionRules s, long now, List<Runnable> tell,
                                   Set<String> heldFor) {
        Pending pending = e.waiter();
        Optional<Placement> placed;
        try {
            placed = placeFromQueue(pending, s.enabled(), withinBudget, now, heldFor);
        } catch (NoReplicaAvailableException ex) {
            queue.remove(e);
            waiting.remove(pending.waiter());
            Rejection r = new Rejection(Rejection.Reason.NO_REPLICA, ex.getMessage(), 1);
            tell.add(() -> pending.waiter().rejected(r));
            return true;
        }
        if (placed.isEmpty()) {
            return false;
        }
        queue.remove(e);
        waiting.remove(pending.waiter());
        totals.admittedFromQueue.incrementAndGet();
        if (!withinBudget && s.enabled() && engagedAt(now)) {
            totals.admittedOverBudget.incrementAndGet();
        }
        forecast.admitted(e.enqueuedAtNanos(), now);
        long waited = now - e.enqueuedAtNanos();
        Placement p = asFirstAnnounced(placed.get(), pending.firstChoice().value);
        Placement withWait = p.withDecision(p.decision(), String.format("queued %.1f s; %s", waited / 1e9, p.reason()));
        Ticket t = pending.again() ? admitted.getOrDefault(pending.facts(), Ticket.NONE)
                : s.enabled() ? ticket(pending.facts(), pending.session()) : Ticket.NONE;
        Admission a = new Admission(withWait, t, waited);
        tell.add(() -> {
            observer.admittedAfterWait(waited);
            pending.waiter().admitted(a);
        });
        return true;
    }

    /**
     * A queued step admitted where its first placement re-pinned the session keeps that placement's decision (DRAIN,
     * SPILL, NEW …) and the home it left: otherwise a move made before the wait would be announced as STICKY. A step
     * whose home was draining is a DRAIN move wherever it is admitted.
     */
    static Placement asFirstAnnounced(Placement now, Placement first) {
        if (first != null && first.decision() == Decision.DRAIN && now.decision() != Decision.DRAIN) {
            // The step left a draining home, wherever the budget finally let it in: that is the move to announce.
            Placement p = now.withDecision(Decision.DRAIN, first.reason() + "; admitted on " + now.replica().id() + ": " + now.reason());
            return first.movedFrom() == null ? p : p.movedFrom(first.movedFrom());
        }
        if (first == null || now.decision() != Decision.STICKY || first.decision() == Decision.STICKY
                || !first.replica().id().equals(now.replica().id())) {
            return now;
        }
        Placement p = now.withDecision(first.decision(), first.reason() + "; admitted there: " + now.reason());
        return first.movedFrom() == null ? p : p.movedFrom(first.movedFrom());
    }

    /** Where the queued request may go now, if anywhere. */
    private Optional<Placement> placeFromQueue(Pending pending, boolean enabled, boolean withinBudget, long now, Set<String> heldFor)
            throws NoReplicaAvailableException {
        PoolSnapshot snap = snapshot.apply(now);
        if (!enabled) {
            return Optional.of(placer.place(pending.facts(), snap, pending.tried(), now));
        }
        if (!withinBudget || (!pending.again() && (residencies.isResident(pending.session()) || peers.holds(pending.session())))) {
            Placement p = placeAsPolicy(pending.facts(), pending.session(), pending.workingSet(), pending.tried(), pending.again(), snap, now);
            pending.firstChoice().offer(p);
            return Optional.of(p);
        }
        return placeWithinBudget(pending.facts(), pending.session(), pending.workingSet(), pending.tried(), pending.again(), snap, now,
                pending.firstChoice(), heldFor);
    }

    /** Where the policy sends the step, whatever the budget: the session is (or stays) resident there. */
    private Placement placeAsPolicy(RequestFacts facts, String session, WorkingSet ws, Set<String> tried, boolean sameStep,
                                    PoolSnapshot snap, long now) throws NoReplicaAvailableException {
        Placement p = placer.place(facts, snap, tried, now);
        reside(facts, session, p.replica().id(), ws, sameStep, now);
        relievePressure(p.replica(), session, now);
        return p;
    }

    /**
     * Where the session's step may go now within the KV budget, if anywhere, among the replicas not in {@code tried};
     * makes the session resident there.
     *
     * @param sameStep the step is already counted (a retry): its residency moves rather than a new step starting
     * @param firstChoice told the policy's choice, which may have re-pinned the session even when the step must wait
     * @param heldFor     replicas requests ahead in the queue wait for: their room is not taken here; when this step
     *                    must wait too, the replica it waits for (the policy's choice) is added
     */
    private Optional<Placement> placeWithinBudget(RequestFacts facts, String session, WorkingSet ws, Set<String> tried,
                                                  boolean sameStep, PoolSnapshot snap, long now, FirstChoice firstChoice,
                                                  Set<String> heldFor)
            throws NoReplicaAvailableException {
        Placement chosen = placer.place(facts, snap, tried, now);
        firstChoice.offer(chosen);
        ReplicaView first = chosen.replica();
        boolean firstHeld = heldFor.contains(first.id());
        if (!firstHeld && residencies.fits(first, ws)) {
            reside(facts, session, first.id(), ws, sameStep, now);
            return Optional.of(chosen);
        }
        // Paused residents that cost more to hold than to recompute make room where the policy wants the step.
        int revoked = firstHeld ? 0 : makeRoom(first, ws, false, now);
        if (!firstHeld && residencies.fits(first, ws)) {
            reside(facts, session, first.id(), ws, sameStep, now);
            return Optional.of(revoked == 0 ? chosen : chosen.withDecision(chosen.decision(), chosen.reason() + "; " + revoked
                    + " paused resident(s) gave up their KV budget"));
        }
        // A session whose home still holds its prefix waits for room there rather than start cold elsewhere, unless a
        // replica would otherwise idle: compute left unused costs more than a prefix recomputed.
        boolean homeHoldsIt = chosen.decision() == Decision.STICKY
                && 2L * prefixIndexes.heldTokens(first, facts.shape()) >= facts.shape().estimatedTokens();
        List<ReplicaView> others = new ArrayList<>(Candidates.eligible(facts, snap, tried));
        others.removeIf(r -> r.id().equals(first.id()) || heldFor.contains(r.id()) || (homeHoldsIt && !computeIdle(r)));
        others.sort(LoadOrder.FOR_NEW_SESSION);
        for (ReplicaView r : others) {
            if (residencies.fits(r, ws)) {
                return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget"));
            }
        }
        for (ReplicaView r : others) {
            int n = makeRoom(r, ws, false, now);
            if (residencies.fits(r, ws)) {
                return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget; "
                        + n + " paused resident(s) of " + r.id() + " gave up theirs"));
            }
        }
        // Work-conserving: a replica with nothing running must not idle while this waits; its residents that have
        // paused for a while (half their usual pause) give way, never one about to return.
        List<ReplicaView> order = new ArrayList<>();
        if (!firstHeld) {
            order.add(first);
        }
        order.addAll(others);
        for (ReplicaView r : order) {
            if (computeIdle(r)) {
                int n = makeRoom(r, ws, true, now);
                if (residencies.fits(r, ws)) {
                    if (r == first) {
                        reside(facts, session, first.id(), ws, sameStep, now);
                        return Optional.of(chosen.withDecision(chosen.decision(), chosen.reason() + "; " + n
                                + " paused resident(s) gave up their KV budget"));
                    }
                    return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget; "
                            + n + " paused resident(s) of " + r.id() + " gave up theirs"));
                }
            }
        }
        heldFor.add(first.id());
        return Optional.empty();
    }

    /**
     * Revokes the replica's paused residents in victim order until the working set fits, and on down to the release
     * mark while any cost more to hold than to recompute. Returns how many were revoked.
     */
    private int makeRoom(ReplicaView r, WorkingSet ws, boolean workConserving, long now) {
        int n = 0;
        long available = residencies.availableBlocks(r);
        for (String victim : victims.order(residencies.pausedOn(r.id()), now, breakEvenNanos(r), workConserving)) {
            if (residencies.fits(r, ws) && Pressure.DEFAULT.released(residencies.usedBlocks(r.id()) + residencies.extraBlocks(r.id(), ws), available)) {
                break;
            }
            residencies.revoke(victim);
            n++;
        }
        totals.revokedUnderPressure.addAndGet(n);
        return n;
    }

    /**
     * Hysteresis: when the replica's residents hold more than the upper mark of its budget, paused residents that cost
     * more to hold than to recompute give up their residency, down to the lower mark. {@code keep}: never this one.
     */
    private void relievePressure(ReplicaView r, String keep, long now) {
        long available = residencies.availableBlocks(r);
        if (!Pressure.DEFAULT.acts(residencies.usedBlocks(r.id()), available)) {
            return;
        }
        int n = 0;
        for (String victim : victims.order(residencies.pausedOn(r.id()), now, breakEvenNanos(r), Victims.Eligible.COSTLY)) {
            if (Pressure.DEFAULT.released(residencies.usedBlocks(r.id()), available)) {
                break;
            }
            if (!victim.equals(keep)) {
                residencies.revoke(victim);
                n++;
            }
        }
        // While the pool thrashes the budget is the budget: residents admitted beyond it (before admission engaged)
        // give it back as they pause, the least likely to return first.
        if (rules.enabled() && engagedAt(now) && residencies.usedBlocks(r.id()) > available) {
            for (String victim : victims.order(residencies.pausedOn(r.id()), now, breakEvenNanos(r), Victims.Eligible.ALL)) {
                if (residencies.usedBlocks(r.id()) <= available) {
                    break;
                }
                if (!victim.equals(keep)) {
                    residencies.revoke(victim);
                    n++;
                }
            }
        }
        totals.revokedUnderPressure.addAndGet(n);
    }

    /**
     * How long holding a session's KV on the replica costs what recomputing it does: holding a working set of W blocks
     * for d takes W/B of the replica's budget B for d, recomputing it takes W blocks' prefill; under pressure a share of
     * the KV budget is that share of the replica's throughput, so the two are equal at d = prefill time of the whole
     * budget, whatever the session's size. The prefill time is the engine's own cost of a token, uncontended: the
     * learned rate or the configured one, whichever is lower. The learned rate is prefill as a request experiences it,
     * sharing each engine step with the decodes of everything running; under load it grows to several times the
     * engine's cost and the break-even with it, holding residents through pauses that recomputing would cost far less
     * than (10 s pauses on the reference replica: admission engaged and lost 13 % to affinity).
     */
    long breakEvenNanos(ReplicaView r) {
        double tokens = (double) residencies.availableBlocks(r) * PrefixIndexes.TOKENS_PER_BLOCK;
        double msPerToken = Math.min(prefillRates.msPerToken(r.id()), prefillRates.prior());
        return Math.max(1, (long) (msPerToken * tokens * 1e6));
    }

    private void reside(RequestFacts facts, String session, String replica, WorkingSet ws, boolean sameStep, long now) {
        if (sameStep) {
            residencies.moved(session, replica, ws, now);
        } else {
            residencies.stepStarted(session, replica, ws, now);
            // The agent kind: how the client names its session (Claude Code's header, Codex's, …).
            returnTimes.stepStarted(session, facts.sessionKey().source().label(), now);
        }
    }

    /** The step goes elsewhere than the policy chose: a session the policy keeps on a home lives there from now on. */
    private Placement moveTo(RequestFacts facts, String session, WorkingSet ws, boolean sameStep, Placement chosen, ReplicaView target,
                             long now, String why) {
        if (policy.get().pinsSessions()) {
            homes.moved(facts, target.id(), now);
        }
        reside(facts, session, target.id(), ws, sameStep, now);
        String reason = (chosen.decision() == Decision.FALLBACK ? chosen.reason() + "; " : "")
                + "admission: " + chosen.replica().id() + " " + why + " → " + target.id();
        int expected = prefixIndexes.heldTokens(target, facts.shape());
        if (chosen.decision() == Decision.STICKY || chosen.decision() == Decision.SPILL) {
            return new Placement(target, Decision.SPILL, reason, expected).movedFrom(chosen.replica().id());
        }
        if (chosen.decision() == Decision.DRAIN) {
            // Still the drain's move, from the draining home, to where the budget has room.
            return new Placement(target, Decision.DRAIN, chosen.reason() + "; " + reason, expected).movedFrom(chosen.movedFrom());
        }
        return new Placement(target, chosen.decision(), reason, expected);
    }

    /** Nothing the router sent is running there, and no resident has a request on its way. */
    private boolean computeIdle(ReplicaView r) {
        return r.inFlight() == 0 && residencies.load(r.id()).inFlight() == 0;
    }

    /** The hold of one admitted request on its session's residency, known by the request's facts until it ends. */
    private Ticket ticket(RequestFacts facts, String session) {
        Ticket t = new Ticket() {
            private boolean closed;

            @Override
            public void close() {
                synchronized (AdmissionController.this) {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    admitted.remove(facts);
                    long now = clock.getAsLong();
                    returnTimes.stepEnded(session, now);
                    boolean idle = residencies.stepEnded(session, now);
                    // Fairness: a long resident yields at its pause while others wait.
                    if (idle && !queue.isEmpty() && residencies.residentForNanos(session, now) >= rules.residencySliceNanos()) {
                        residencies.revoke(session);
                        totals.yieldedSlice.incrementAndGet();
                    }
                }
                pump();
            }
        };
        admitted.put(facts, t);
        return t;
    }

    /**
     * The request is over, however it ended: admission hears it here and only here. A request still queued leaves
     * the queue; one admitted gives its step back (its session's residency counts from now as paused).
     */
    public void release(RequestFacts facts, Waiter waiter) {
        cancel(waiter);
        Ticket t;
        synchronized (this) {
            t = admitted.get(facts);
        }
        if (t != null) {
            t.close();
        }
    }

    private long retryAfterSeconds(long now) {
        long oldest = queue.oldestWaitNanos(now) / NANOS_PER_SECOND;
        return Math.max(1, Math.min(600, oldest));
    }

    private static String sessionOf(RequestFacts facts) {
        return facts.modelKey() + '\u0000' + facts.sessionKey().value();
    }

    /**
     * Every resident of the replica leaves the ledger (the replica left the pool, or drains): they are admitted afresh
     * wherever they go next. Returns how many there were.
     */
    public synchronized int forgetReplica(String replica) {
        breakEvens.remove(replica);
        return residencies.forgetReplica(replica);
    }

    /**
     * The engine served a step of the request's session on {@code replica} ({@code promptTokens}, {@code cachedTokens} of
     * them from its cache, and {@code outputTokens}; -1 where it reported none): the session's attained service grows,
     * and a step back home after a short pause that found its own prefix gone is evidence of thrashing.
     */
    public synchronized void served(RequestFacts facts, String replica, long promptTokens, long cachedTokens, long outputTokens) {
        long now = clock.getAsLong();
        String session = sessionOf(facts);
        service.add(session, Math.max(0, promptTokens - Math.max(0, cachedTokens)) + Math.max(0, outputTokens), now);
        long breakEven = breakEvens.getOrDefault(replica, 0L);
        long pause = returnTimes.lastPauseNanos(session);
        // Only misses admission could have saved are evidence: after a pause shorter than the break-even, by a session
        // that residency by cost would have kept (likely to return within the break-even).
        boolean heldThrough = breakEven > 0 && pause >= 0 && pause < breakEven
                && returnTimes.returnChance(session, 0, breakEven) >= Victims.PRESSURE_RETURN_CHANCE;
        thrash.served(session, replica, promptTokens, cachedTokens, outputTokens, heldThrough, now);
    }

    /**
     * The pool thrashes ({@link ThrashSignal}) and holding residents through their pauses pays: the pool's median pause
     * is well inside the break-even of the replicas ({@link #HOLDING_PAYS_SHARE_OF_BREAK_EVEN}). Set to apply always,
     * it always does.
     */
    private boolean engagedAt(long now) {
        if (!thrash.engaged(now)) {
            return false;
        }
        if (rules.alwaysEngaged()) {
            return true;
        }
        long longest = 0;
        for (long b : breakEvens.values()) {
            longest = Math.max(longest, b);
        }
        return returnTimes.poolMedianPauseNanos() * HOLDING_PAYS_SHARE_OF_BREAK_EVEN < longest;
    }

    /** Whether the KV budget applies now (admission on, and the pool thrashes or it is set to apply always). */
    public synchronized boolean engaged() {
        return rules.enabled() && engagedAt(clock.getAsLong());
    }

    public synchronized int queueLength() {
        return queue.size();
    }

    public synchronized double oldestWaitSeconds() {
        return queue.oldestWaitNanos(clock.getAsLong()) / 1e9;
    }

    /** This router's resident sessions, for its peers. */
    public synchronized List<PeerResident> residents() {
        return residencies.residents();
    }

    public synchronized Map<String, ResidencyTable.ReplicaLoad> residentLoads() {
        return residencies.loads();
    }

    /**
     * What the resident sessions (this router's and its peers') hold of the KV budget of the replicas that take new
     * work, 0..1 (an empty replica may take a session larger than its budget: counted as full): an autoscaler's signal.
     */
    public synchronized double budgetUsedRatio(PoolSnapshot snap) {
        long used = 0;
        long budget = 0;
        boolean anyUsed = false;
        for (ReplicaView r : snap.replicas()) {
            if (r.ready()) {
                long b = residencies.budgetBlocks(r);
                long u = residencies.usedBlocks(r.id()) + b - residencies.availableBlocks(r);
                anyUsed |= u > 0;
                used += Math.min(b, u);
                budget += b;
            }
        }
        return budget == 0 ? (anyUsed ? 1 : 0) : (double) used / budget;
    }

    /** Budget of a replica in tokens, for the API. */
    public long budgetTokens(ReplicaView r) {
        return residencies.budgetBlocks(r) * PrefixIndexes.TOKENS_PER_BLOCK;
    }

    /** Totals since start, for the API and the capacity advisor. */
    public synchronized Map<String, Object> totals() {
        Map<String, Object> m = totals.asMap(residencies.size());
        m.put("thrash", thrash.state(clock.getAsLong()));
        return m;
    }
}
