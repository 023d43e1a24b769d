package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.filter.Candidates;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.HashMap;
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
 * its retries, before a replica is reserved. A step of a resident session goes where the policy sends it (home) at
 * once. A step of a session that is not resident is admitted where the policy would place it if its working set
 * fits that replica's budget, else on the least loaded replica where it fits, else — only when a replica's compute
 * would otherwise idle — on a replica whose idle residents give up their residency; otherwise it waits in a FIFO
 * queue, bounded in length and time. A request that already holds its admission and must go elsewhere (a retry
 * after its replica failed, or that replica left the pool) is placed by the same rule among the replicas it has not
 * tried, its residency moving with it, or waits ahead of newcomers. Resident sessions never wait behind newcomers;
 * a newcomer never overtakes an earlier one. The budget arithmetic is the {@link ResidencyTable}'s ledger's.
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

        /** The queue was full; the request waited the whole queue timeout; no replica is ready any more. */
        public enum Reason {
            QUEUE_FULL("queue_full"), QUEUE_TIMEOUT("queue_timeout"), NO_REPLICA("no_replica");

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
    /** An idle replica's residents may be revoked once paused for a fifth of the residency idle time. */
    private static final long COMPUTE_IDLE_GRACE_DIVISOR = 5;
    /** A session that lost its residency this many idle limits ago or less counts as in progress when it returns. */
    private static final long INTERRUPTED_MEMORY_IDLE_LIMITS = 6;

    private final Placer placer;
    private final LongFunction<PoolSnapshot> snapshot;
    private final Supplier<PlacementPolicy> policy;
    private final SessionHomes homes;
    private final PrefixIndexes prefixIndexes;
    private final AdmissionObserver observer;
    private final LongSupplier clock;
    private final PeerResidents peers;
    private final ResidencyTable residencies;
    private final Map<Waiter, AdmissionQueue.Entry<Pending>> waiting = new HashMap<>();
    /** Admitted requests by their facts (one object per request), until the request ends. */
    private final Map<RequestFacts, Ticket> admitted = new IdentityHashMap<>();
    private final AdmissionTotals totals = new AdmissionTotals();
    private volatile AdmissionRules rules;
    private final AdmissionQueue<Pending> queue;

    public AdmissionController(AdmissionRules rules, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionHomes homes, PrefixIndexes prefixIndexes,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock) {
        this(rules, placer, snapshot, policy, homes, prefixIndexes, defaultCapacityTokens, observer, clock, PeerResidents.NONE);
    }

    /**
     * {@code peers}: the sessions the other routers of the same cluster hold resident. Their blocks come
     * out of this router's share of each replica's budget (each session and each shared prefix once), so
     * that a replica has one budget however many routers admit to it; and a session resident through
     * another router is resident here too, since its steps reach the routers in any order.
     */
    public AdmissionController(AdmissionRules rules, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionHomes homes, PrefixIndexes prefixIndexes,
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
    }

    /**
     * A request in the queue. {@code tried}: the replicas earlier attempts failed on (empty for a first attempt);
     * {@code again}: it holds its admission already and is placed again (a retry), so its step is counted once.
     */
    private record Pending(RequestFacts facts, String session, WorkingSet workingSet, Waiter waiter, Set<String> tried, boolean again) {
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
            if (again) {
                // Its step is under way already: it moves within the budget, or waits for room ahead of newcomers.
                Optional<Placement> p = placeWithinBudget(facts, session, ws, alreadyTried, true, snap, now);
                if (p.isPresent()) {
                    totals.admittedAtOnce.incrementAndGet();
                    return Optional.of(new Admission(p.get(), admitted.get(facts), 0));
                }
            } else if (residencies.isResident(session) || peers.holds(session)) {
                Placement p = placer.place(facts, snap, alreadyTried, now);
                residencies.stepStarted(session, p.replica().id(), ws, now);
                totals.admittedAtOnce.incrementAndGet();
                return Optional.of(new Admission(p, ticket(facts, session), 0));
            }
            // A session in progress that lost its residency while pausing queues before newcomers; so does a retry.
            boolean returning = again || residencies.wasInterrupted(session, now, s.residencyIdleNanos() * INTERRUPTED_MEMORY_IDLE_LIMITS);
            if (!again && (returning ? !queue.hasReturning() : queue.isEmpty())) {
                Optional<Placement> p = placeWithinBudget(facts, session, ws, Set.of(), false, snap, now);
                if (p.isPresent()) {
                    totals.admittedAtOnce.incrementAndGet();
                    return Optional.of(new Admission(p.get(), ticket(facts, session), 0));
                }
            }
            Optional<AdmissionQueue.Entry<Pending>> entry = queue.offer(
                    new Pending(facts, session, ws, waiter, Set.copyOf(alreadyTried), again), now, returning);
            if (entry.isPresent()) {
                waiting.put(waiter, entry.get());
                totals.queued.incrementAndGet();
                return Optional.empty();
            }
            totals.rejected.incrementAndGet();
            rejection = new Rejection(Rejection.Reason.QUEUE_FULL, "the router's admission queue is full (" + s.queueMax()
                    + " requests, queueMax): every replica's KV cache budget is taken by running sessions; retry after the "
                    + "Retry-After delay", retryAfterSeconds(now));
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
     * Ends idle residencies, times out waiters and admits from the head of the queue while the head
     * fits. Called on a timer and whenever a request ends.
     */
    public void pump() {
        List<Runnable> tell = new ArrayList<>();
        synchronized (this) {
            long now = clock.getAsLong();
            AdmissionRules s = rules;
            totals.expiredIdle.addAndGet(residencies.expireIdle(now, s.residencyIdleNanos()));
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
            while (true) {
                Optional<AdmissionQueue.Entry<Pending>> head = queue.head();
                if (head.isEmpty()) {
                    break;
                }
                AdmissionQueue.Entry<Pending> e = head.get();
                Pending pending = e.waiter();
                Optional<Placement> placed;
                try {
                    placed = placeFromQueue(pending, s.enabled(), now);
                } catch (NoReplicaAvailableException ex) {
                    queue.remove(e);
                    waiting.remove(pending.waiter());
                    Rejection r = new Rejection(Rejection.Reason.NO_REPLICA, ex.getMessage(), 1);
                    tell.add(() -> pending.waiter().rejected(r));
                    continue;
                }
                if (placed.isEmpty()) {
                    break;
                }
                queue.remove(e);
                waiting.remove(pending.waiter());
                totals.admittedFromQueue.incrementAndGet();
                long waited = now - e.enqueuedAtNanos();
                Placement p = placed.get();
                Placement withWait = p.withDecision(p.decision(), String.format("queued %.1f s; %s", waited / 1e9, p.reason()));
                Ticket t = pending.again() ? admitted.getOrDefault(pending.facts(), Ticket.NONE)
                        : s.enabled() ? ticket(pending.facts(), pending.session()) : Ticket.NONE;
                Admission a = new Admission(withWait, t, waited);
                tell.add(() -> {
                    observer.admittedAfterWait(waited);
                    pending.waiter().admitted(a);
                });
            }
        }
        tell.forEach(Runnable::run);
    }

    /** Where the head of the queue may go now, if anywhere. */
    private Optional<Placement> placeFromQueue(Pending pending, boolean enabled, long now) throws NoReplicaAvailableException {
        if (!enabled) {
            return Optional.of(placer.place(pending.facts(), snapshot.apply(now), pending.tried(), now));
        }
        if (pending.again()) {
            return placeWithinBudget(pending.facts(), pending.session(), pending.workingSet(), pending.tried(), true, snapshot.apply(now), now);
        }
        if (residencies.isResident(pending.session()) || peers.holds(pending.session())) {
            Placement p = placer.place(pending.facts(), snapshot.apply(now), Set.of(), now);
            residencies.stepStarted(pending.session(), p.replica().id(), pending.workingSet(), now);
            return Optional.of(p);
        }
        return placeWithinBudget(pending.facts(), pending.session(), pending.workingSet(), Set.of(), false, snapshot.apply(now), now);
    }

    /**
     * Where the session's step may go now within the KV budget, if anywhere, among the replicas not in {@code tried};
     * makes the session resident there.
     *
     * @param sameStep the step is already counted (a retry): its residency moves rather than a new step starting
     */
    private Optional<Placement> placeWithinBudget(RequestFacts facts, String session, WorkingSet ws, Set<String> tried,
                                                  boolean sameStep, PoolSnapshot snap, long now) throws NoReplicaAvailableException {
        Placement chosen = placer.place(facts, snap, tried, now);
        ReplicaView first = chosen.replica();
        if (residencies.fits(first, ws)) {
            reside(session, first.id(), ws, sameStep, now);
            return Optional.of(chosen);
        }
        List<ReplicaView> others = new ArrayList<>(Candidates.eligible(facts, snap, tried));
        others.removeIf(r -> r.id().equals(first.id()));
        others.sort(LoadOrder.FOR_NEW_SESSION);
        for (ReplicaView r : others) {
            if (residencies.fits(r, ws)) {
                return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget"));
            }
        }
        // Work-conserving: a replica with nothing running must not idle while this waits; its idle
        // residents are the cheapest thing to give up. Not in the instant between a reply and the next
        // step, though: only residents that have paused for a while.
        List<ReplicaView> order = new ArrayList<>();
        order.add(first);
        order.addAll(others);
        long pausedBefore = now - rules.residencyIdleNanos() / COMPUTE_IDLE_GRACE_DIVISOR;
        for (ReplicaView r : order) {
            if (computeIdle(r)) {
                List<String> revoked = residencies.revokeIdleUntilFits(r.id(), ws, residencies.availableBlocks(r), pausedBefore, now);
                totals.revokedUnderPressure.addAndGet(revoked.size());
                if (residencies.fits(r, ws)) {
                    if (r == first) {
                        reside(session, first.id(), ws, sameStep, now);
                        return Optional.of(chosen.withDecision(chosen.decision(), chosen.reason() + "; " + revoked.size()
                                + " idle resident(s) gave up their KV budget"));
                    }
                    return Optional.of(moveTo(facts, session, ws, sameStep, chosen, r, now, "over its KV budget; "
                            + revoked.size() + " idle resident(s) of " + r.id() + " gave up theirs"));
                }
            }
        }
        return Optional.empty();
    }

    private void reside(String session, String replica, WorkingSet ws, boolean sameStep, long now) {
        if (sameStep) {
            residencies.moved(session, replica, ws, now);
        } else {
            residencies.stepStarted(session, replica, ws, now);
        }
    }

    /** The step goes elsewhere than the policy chose: a session the policy keeps on a home lives there from now on. */
    private Placement moveTo(RequestFacts facts, String session, WorkingSet ws, boolean sameStep, Placement chosen, ReplicaView target,
                             long now, String why) {
        if (policy.get().pinsSessions()) {
            homes.moved(facts, target.id(), now);
        }
        reside(session, target.id(), ws, sameStep, now);
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

    /** A replica left the pool: its residents are admitted afresh wherever they go next. */
    public synchronized void forgetReplica(String replica) {
        residencies.forgetReplica(replica);
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
        return totals.asMap(residencies.size());
    }
}
