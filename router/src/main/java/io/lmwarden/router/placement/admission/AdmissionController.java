package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.SessionPins;
import io.lmwarden.router.placement.Decision;
import io.lmwarden.router.placement.LoadOrder;
import io.lmwarden.router.placement.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.AttemptEnd;
import io.lmwarden.router.placement.PlacementFeedback;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.Reservation;
import io.lmwarden.router.placement.PrefixIndexes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * KV-budgeted session admission. A step of a resident session goes where the policy sends it (home)
 * at once. A step of a session that is not resident is admitted where the policy would place it if
 * its working set fits that replica's budget, else on the least loaded replica where it fits, else —
 * only when a replica's compute would otherwise idle — on a replica whose idle residents give up their
 * residency; otherwise it waits in a FIFO queue, bounded in length and time. Resident sessions never
 * wait behind newcomers; a newcomer never overtakes an earlier one.
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

    /**
     * Not admitted. {@code reason} is {@code queue_full}, {@code queue_timeout} or {@code no_replica};
     * {@code status} is 503 for {@code no_replica}, else 0 (the API decides: 429 OpenAI, 529 Anthropic).
     */
    public record Rejection(String reason, int status, String message, long retryAfterSeconds) {
    }

    /** One admitted request's hold on its session's residency; {@link #close} exactly once, when it ends. */
    public interface Ticket {
        /** A retry sent the request elsewhere. */
        void moved(String replica);

        void close();

        Ticket NONE = new Ticket() {
            @Override
            public void moved(String replica) {
            }

            @Override
            public void close() {
            }
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
    private final SessionPins affinity;
    private final PrefixIndexes prefixIndexes;
    private final int defaultCapacityTokens;
    private final AdmissionObserver observer;
    private final LongSupplier clock;
    private final PeerResidents peers;
    private final ResidencyTable residencies = new ResidencyTable();
    private final Map<Waiter, AdmissionQueue.Entry<Pending>> waiting = new HashMap<>();
    /** Admitted requests by their facts (one object per request), until their last attempt ends. */
    private final Map<RequestFacts, Ticket> admitted = new IdentityHashMap<>();
    private final AtomicLong admittedNow = new AtomicLong();
    private final AtomicLong admittedFromQueue = new AtomicLong();
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong revokedUnderPressure = new AtomicLong();
    private final AtomicLong yielded = new AtomicLong();
    private final AtomicLong expired = new AtomicLong();
    private volatile AdmissionSettings settings;
    private AdmissionQueue<Pending> queue;

    public AdmissionController(AdmissionSettings settings, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionPins affinity, PrefixIndexes prefixIndexes,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock) {
        this(settings, placer, snapshot, policy, affinity, prefixIndexes, defaultCapacityTokens, observer, clock, PeerResidents.NONE);
    }

    /**
     * {@code peers}: the sessions the other routers of the same cluster hold resident. Their blocks come
     * out of this router's share of each replica's budget (each session and each shared prefix once), so
     * that a replica has one budget however many routers admit to it; and a session resident through
     * another router is resident here too, since its steps reach the routers in any order.
     */
    public AdmissionController(AdmissionSettings settings, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionPins affinity, PrefixIndexes prefixIndexes,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock,
                               PeerResidents peers) {
        this.peers = peers;
        this.settings = settings;
        this.placer = placer;
        this.snapshot = snapshot;
        this.policy = policy;
        this.affinity = affinity;
        this.prefixIndexes = prefixIndexes;
        this.defaultCapacityTokens = defaultCapacityTokens;
        this.observer = observer;
        this.clock = clock;
        this.queue = new AdmissionQueue<>(settings.queueMax(), settings.queueTimeoutNanos());
    }

    private record Pending(RequestFacts facts, String session, WorkingSet workingSet, Waiter waiter) {
    }

    public AdmissionSettings settings() {
        return settings;
    }

    /** Switches admission on or off at run time; switching off admits everything waiting on the next pump. */
    public void setEnabled(boolean on) {
        settings = settings.withEnabled(on);
        pump();
    }

    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * Admits the request now (returns its admission), or queues it, or rejects it (returns empty; the
     * waiter is told, a rejection before this returns).
     */
    public Optional<Admission> submit(RequestFacts facts, Set<String> alreadyTried, Waiter waiter) throws NoReplicaAvailableException {
        Rejection rejection;
        synchronized (this) {
            long now = clock.getAsLong();
            AdmissionSettings s = settings;
            boolean pinnedByClient = facts.pinnedReplica().isPresent() || facts.dataParallelRank().isPresent();
            PoolSnapshot snap = snapshot.apply(now);
            // A model nobody serves gets the engine's 404 at once: it holds no KV budget and never waits for any.
            if (!s.enabled() || pinnedByClient || Placer.unserved(facts, snap)) {
                return Optional.of(new Admission(placer.place(facts, snap, alreadyTried, now), Ticket.NONE, 0));
            }
            String session = sessionOf(facts);
            WorkingSet ws = WorkingSet.of(facts);
            if (residencies.isResident(session) || peers.holds(session)) {
                Placement p = placer.place(facts, snap, alreadyTried, now);
                residencies.stepStarted(session, p.replica().id(), ws, now);
                admittedNow.incrementAndGet();
                return Optional.of(new Admission(p, ticket(facts, session), 0));
            }
            // A session in progress that lost its residency while pausing queues before newcomers.
            boolean returning = residencies.wasInterrupted(session, now, s.residencyIdleNanos() * INTERRUPTED_MEMORY_IDLE_LIMITS);
            if (returning ? !queue.hasReturning() : queue.isEmpty()) {
                Optional<Placement> p = admitNonResident(facts, session, ws, now, snap);
                if (p.isPresent()) {
                    admittedNow.incrementAndGet();
                    return Optional.of(new Admission(p.get(), ticket(facts, session), 0));
                }
            }
            Optional<AdmissionQueue.Entry<Pending>> entry = queue.offer(new Pending(facts, session, ws, waiter), now, returning);
            if (entry.isPresent()) {
                waiting.put(waiter, entry.get());
                queued.incrementAndGet();
                return Optional.empty();
            }
            rejected.incrementAndGet();
            rejection = new Rejection("queue_full", 0, "the router's admission queue is full (" + s.queueMax()
                    + " requests, queueMax): every replica's KV cache budget is taken by running sessions; retry after the "
                    + "Retry-After delay", retryAfterSeconds(now));
        }
        observer.rejected(rejection.reason());
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
     * fits. Called on a timer and whenever a step ends.
     */
    public void pump() {
        List<Runnable> tell = new ArrayList<>();
        synchronized (this) {
            long now = clock.getAsLong();
            AdmissionSettings s = settings;
            expired.addAndGet(residencies.expireIdle(now, s.residencyIdleNanos()));
            for (AdmissionQueue.Entry<Pending> e : queue.removeExpired(now)) {
                waiting.remove(e.waiter().waiter());
                rejected.incrementAndGet();
                long waitedSeconds = (now - e.enqueuedAtNanos()) / NANOS_PER_SECOND;
                Rejection r = new Rejection("queue_timeout", 0, "the request waited " + waitedSeconds + " s for a replica with "
                        + "room in its KV cache budget (queueTimeout); the pool is saturated, retry after the Retry-After delay",
                        retryAfterSeconds(now));
                tell.add(() -> {
                    observer.rejected(r.reason());
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
                    if (!s.enabled() || residencies.isResident(pending.session()) || peers.holds(pending.session())) {
                        Placement p = placer.place(pending.facts(), snapshot.apply(now), Set.of(), now);
                        if (s.enabled()) {
                            residencies.stepStarted(pending.session(), p.replica().id(), pending.workingSet(), now);
                        }
                        placed = Optional.of(p);
                    } else {
                        placed = admitNonResident(pending.facts(), pending.session(), pending.workingSet(), now);
                    }
                } catch (NoReplicaAvailableException ex) {
                    queue.remove(e);
                    waiting.remove(pending.waiter());
                    Rejection r = new Rejection("no_replica", ex.status(), ex.getMessage(), 1);
                    tell.add(() -> pending.waiter().rejected(r));
                    continue;
                }
                if (placed.isEmpty()) {
                    break;
                }
                queue.remove(e);
                waiting.remove(pending.waiter());
                admittedFromQueue.incrementAndGet();
                long waited = now - e.enqueuedAtNanos();
                Placement p = placed.get();
                Placement withWait = p.withDecision(p.decision(), String.format("queued %.1f s; %s", waited / 1e9, p.reason()));
                Admission a = new Admission(withWait, s.enabled() ? ticket(pending.facts(), pending.session()) : Ticket.NONE, waited);
                tell.add(() -> {
                    observer.admittedAfterWait(waited);
                    pending.waiter().admitted(a);
                });
            }
        }
        tell.forEach(Runnable::run);
    }

    /** Where a session that is not resident may go now, if anywhere; makes it resident there. */
    private Optional<Placement> admitNonResident(RequestFacts facts, String session, WorkingSet ws, long now)
            throws NoReplicaAvailableException {
        return admitNonResident(facts, session, ws, now, snapshot.apply(now));
    }

    private Optional<Placement> admitNonResident(RequestFacts facts, String session, WorkingSet ws, long now, PoolSnapshot snap)
            throws NoReplicaAvailableException {
        Placement chosen = placer.place(facts, snap, Set.of(), now);
        ReplicaView first = chosen.replica();
        if (fits(first, ws)) {
            residencies.stepStarted(session, first.id(), ws, now);
            return Optional.of(chosen);
        }
        List<ReplicaView> others = new ArrayList<>(Placer.eligible(facts, snap));
        others.removeIf(r -> r.id().equals(first.id()));
        others.sort(LoadOrder.FOR_NEW_SESSION);
        for (ReplicaView r : others) {
            if (fits(r, ws)) {
                return Optional.of(moveTo(facts, session, ws, chosen, r, now, "over its KV budget"));
            }
        }
        // Work-conserving: a replica with nothing running must not idle while this waits; its idle
        // residents are the cheapest thing to give up. Not in the instant between a reply and the next
        // step, though: only residents that have paused for a while.
        List<ReplicaView> order = new ArrayList<>();
        order.add(first);
        order.addAll(others);
        long pausedBefore = now - settings.residencyIdleNanos() / COMPUTE_IDLE_GRACE_DIVISOR;
        for (ReplicaView r : order) {
            if (computeIdle(r)) {
                List<String> revoked = residencies.revokeIdleUntilFits(r.id(), ws, availableBlocks(r), pausedBefore, now);
                revokedUnderPressure.addAndGet(revoked.size());
                if (fits(r, ws)) {
                    if (r == first) {
                        residencies.stepStarted(session, first.id(), ws, now);
                        return Optional.of(chosen.withDecision(chosen.decision(), chosen.reason() + "; " + revoked.size()
                                + " idle resident(s) gave up their KV budget"));
                    }
                    return Optional.of(moveTo(facts, session, ws, chosen, r, now, "over its KV budget; "
                            + revoked.size() + " idle resident(s) of " + r.id() + " gave up theirs"));
                }
            }
        }
        return Optional.empty();
    }

    private Placement moveTo(RequestFacts facts, String session, WorkingSet ws, Placement chosen, ReplicaView target,
                             long now, String why) {
        if (policy.get().pinsSessions()) {
            affinity.pin(facts.modelKey(), facts.sessionKey().value(), target.id(), now);
        }
        residencies.stepStarted(session, target.id(), ws, now);
        String reason = "admission: " + chosen.replica().id() + " " + why + " → " + target.id();
        int expected = prefixIndexes.heldTokens(target, facts.shape());
        if (chosen.decision() == Decision.STICKY || chosen.decision() == Decision.SPILL) {
            return new Placement(target, Decision.SPILL, reason, expected).movedFrom(chosen.replica().id());
        }
        return new Placement(target, chosen.decision(), reason, expected);
    }

    /** Nothing the router sent is running there, and no resident has a request on its way. */
    private boolean computeIdle(ReplicaView r) {
        return r.inFlight() == 0 && residencies.load(r.id()).inFlight() == 0;
    }

    /**
     * Whether the working set fits what is left of the replica's budget. A replica nobody holds
     * anything on takes any working set; one where other routers' residents hold blocks does not.
     */
    private boolean fits(ReplicaView r, WorkingSet ws) {
        List<PeerResident> others = peers.on(r.id());
        long peerBlocks = others.isEmpty() ? 0 : residencies.peerBlocks(r.id(), others);
        if (peerBlocks == 0) {
            return residencies.fits(r.id(), ws, budgetBlocks(r));
        }
        return residencies.usedBlocks(r.id()) + residencies.extraBlocks(r.id(), ws, others) <= budgetBlocks(r) - peerBlocks;
    }

    /** The replica's budget less what the other routers' residents hold there (beyond this router's). */
    private long availableBlocks(ReplicaView r) {
        List<PeerResident> others = peers.on(r.id());
        return Math.max(0, budgetBlocks(r) - (others.isEmpty() ? 0 : residencies.peerBlocks(r.id(), others)));
    }

    private long budgetBlocks(ReplicaView r) {
        long capacity = r.metrics() != null && r.metrics().kvCapacityTokens() > 0 ? r.metrics().kvCapacityTokens() : defaultCapacityTokens;
        return (long) (capacity * settings.kvBudget() / PrefixIndexes.TOKENS_PER_BLOCK);
    }

    /** The hold of one admitted request on its session's residency, known by the request's facts until it ends. */
    private Ticket ticket(RequestFacts facts, String session) {
        Ticket t = new Ticket() {
            private boolean closed;

            @Override
            public void moved(String replica) {
                synchronized (AdmissionController.this) {
                    if (!closed) {
                        residencies.moved(session, replica);
                    }
                }
            }

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
                    if (idle && !queue.isEmpty() && residencies.residentForNanos(session, now) >= settings.residencySliceNanos()) {
                        residencies.revoke(session);
                        yielded.incrementAndGet();
                    }
                }
                pump();
            }
        };
        admitted.put(facts, t);
        return t;
    }

    /**
     * How admission hangs off the placement feedback seam: a retry on another replica moves the
     * session's residency there; the last attempt's end ends the step (a retried attempt is not the end).
     */
    public PlacementFeedback feedback() {
        return new PlacementFeedback() {
            @Override
            public void placed(Reservation r) {
                if (r.attempt() > 1) {
                    ticketOf(r.facts()).ifPresent(t -> t.moved(r.replicaId()));
                }
            }

            @Override
            public void ended(Reservation r, AttemptEnd end) {
                if (!end.retried()) {
                    ticketOf(r.facts()).ifPresent(Ticket::close);
                }
            }
        };
    }

    /**
     * The exchange is over. A request still queued leaves the queue; one admitted whose reservation
     * never opened (the client left first) gives its step back. Harmless when the seam already did.
     */
    public void release(RequestFacts facts, Waiter waiter) {
        cancel(waiter);
        ticketOf(facts).ifPresent(Ticket::close);
    }

    private synchronized Optional<Ticket> ticketOf(RequestFacts facts) {
        return Optional.ofNullable(admitted.get(facts));
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

    /** Budget of a replica in tokens, for the API. */
    public long budgetTokens(ReplicaView r) {
        return budgetBlocks(r) * PrefixIndexes.TOKENS_PER_BLOCK;
    }

    /** Totals since start, for the API and the capacity advisor. */
    public synchronized Map<String, Object> totals() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("admittedAtOnce", admittedNow.get());
        m.put("admittedFromQueue", admittedFromQueue.get());
        m.put("queued", queued.get());
        m.put("rejected", rejected.get());
        m.put("revokedUnderPressure", revokedUnderPressure.get());
        m.put("yieldedSlice", yielded.get());
        m.put("expiredIdle", expired.get());
        m.put("residentSessions", residencies.size());
        return m;
    }
}
