package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.filter.Candidates;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.PlacementPolicy;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.HeldTokens;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.RequestFacts;

import java.util.ArrayList;
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
 * budget, but only while the pool thrashes and holding residents pays ({@link EngagementGate}; {@link ThrashSignal}: residents missing their own cached prefix, an
 * engine's KV full with requests waiting); otherwise every step goes where the policy sends it, as without admission,
 * and only the ledger is kept. Engaged: a step of a resident session goes where the policy sends it (home) at once;
 * a step of a session that is not resident is admitted where the policy would place it if its working set fits that
 * replica's budget — paused residents there giving up their residency by cost if need be ({@link Victims}) — else on
 * the least loaded replica where it fits (unless its home still holds its prefix), else — when a replica's compute
 * would otherwise idle — where paused residents give way; otherwise it waits: sessions in progress first, the least
 * served first with aging (a step that waited gains), then newcomers in arrival order; a step of a session in progress
 * waits at most the wait bound, a newcomer that waited it is budgeted for a reply like the pool's recent ones. A
 * request that waits holds the replica it waits for; those behind it may be admitted elsewhere meanwhile (backfill),
 * never into that room. A newcomer whose forecast wait, corrected by the
 * forecast's own recent error ({@link WaitForecast}), exceeds the queue timeout is told at once (unless fail-fast is
 * off); a step of a session in progress is never turned away (past the wait bound, or with the queue full, it is admitted
 * over the budget). Residency lapses by cost, never by a timer: under pressure (hysteresis, {@link Pressure})
 * paused residents unlikely to return within the break-even — the time in which holding a session's KV costs what
 * recomputing it would ({@link EngagementGate}) — give up their residency. The budget arithmetic is the
 * {@link ResidencyTable}'s ledger's.
 *
 * <p>This class is the front door: submit, cancel, release and the tickets. Each decision has one home: the queue's
 * order and the pump ({@link QueueScheduler}), where a step may go ({@link RoomFinder}), whose residency lapses
 * ({@link Revocations}), whether the budget applies and the break-even ({@link EngagementGate}), the decision a step
 * is announced with ({@link FirstChoice}), what the API shows ({@link AdmissionReport}). All state changes happen
 * under this object's lock; waiters are told outside it.
 *
 * <p>In a cluster of routers, what it knows of a session travels with the session ({@link SessionFact}: adopted when
 * a step arrives that a peer knows further, published when a step ends) and the evidence for engagement is the
 * cluster's ({@link AdmissionEvidence}), so that a step judged here is judged as one router would.
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

    private final Placer placer;
    private final LongFunction<PoolSnapshot> snapshot;
    private final AdmissionObserver observer;
    private final LongSupplier clock;
    private final PeerResidents peers;
    private final SessionFacts facts;
    private final EpochClock epoch;
    private final ThrashSignal thrash;
    private final ResidencyTable residencies;
    private final ReturnTimes returnTimes;
    private final AttainedService service;
    private final ReplyLengths replies = new ReplyLengths();
    private final EngagementGate gate;
    private final Revocations revocations;
    private final RoomFinder rooms;
    private final Tickets tickets;
    private final QueueScheduler scheduler;
    private final AdmissionReport report;
    private final AdmissionTotals totals = new AdmissionTotals();
    private volatile AdmissionRules rules;

    public AdmissionController(AdmissionRules rules, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionHomes homes, HeldTokens held, PrefillRates prefillRates,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock) {
        this(rules, placer, snapshot, policy, homes, held, prefillRates, defaultCapacityTokens, observer, clock, ClusterShare.ALONE);
    }

    /** @param cluster what the other routers of the cluster hold, know and have seen ({@link ClusterShare}) */
    public AdmissionController(AdmissionRules rules, Placer placer, LongFunction<PoolSnapshot> snapshot,
                               Supplier<PlacementPolicy> policy, SessionHomes homes, HeldTokens held, PrefillRates prefillRates,
                               int defaultCapacityTokens, AdmissionObserver observer, LongSupplier clock, ClusterShare cluster) {
        PeerResidents peers = cluster.residents();
        SessionFacts facts = cluster.facts();
        PeerEvidence evidence = cluster.evidence();
        this.peers = peers;
        this.facts = facts;
        this.epoch = facts == SessionFacts.NONE && evidence == PeerEvidence.NONE ? EpochClock.IDENTITY : EpochClock.of(clock);
        this.rules = rules;
        this.placer = placer;
        this.snapshot = snapshot;
        this.observer = observer;
        this.clock = clock;
        this.residencies = new ResidencyTable(rules.kvBudget(), defaultCapacityTokens, peers);
        this.returnTimes = new ReturnTimes(rules.pausePriorNanos());
        this.service = new AttainedService(rules.serviceHalfLifeNanos());
        this.thrash = new ThrashSignal(rules.alwaysEngaged(), rules.calmNanos(), BoundedSessions.DEFAULT_BOUND, evidence, epoch);
        this.gate = new EngagementGate(this::rules, thrash, returnTimes, residencies, prefillRates, evidence);
        this.revocations = new Revocations(residencies, new Victims(returnTimes, service), gate, totals);
        this.rooms = new RoomFinder(placer, policy, homes, held, residencies, returnTimes, revocations);
        this.tickets = new Tickets(this, clock, this::stepEnded, this::pump);
        this.scheduler = new QueueScheduler(this::rules, placer, snapshot, rooms, gate, tickets, residencies, peers, totals, observer, replies);
        this.report = new AdmissionReport(residencies, totals, gate, scheduler);
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
            boolean again = tickets.holds(facts);
            if (!again) {
                adoptFact(session, facts.sessionKey().source().label());
                returnTimes.arrived(session, now);
            }
            boolean engaged = gate.appliesAt(now);
            FirstChoice first = new FirstChoice();
            HeldRooms held = new HeldRooms();
            // What it waits behind if it must: whoever waits ahead in its lane, or why a look found no room.
            WaitCause cause = !scheduler.aheadOfInProgress() ? WaitCause.NEWCOMERS_AHEAD : WaitCause.SESSIONS_AHEAD;
            if (again) {
                // Its step is under way already: it moves within the budget, or waits for room ahead of newcomers.
                Optional<Placement> p = engaged ? rooms.placeWithinBudget(facts, session, ws, alreadyTried, true, snap, now, first, held, true)
                        : Optional.of(rooms.placeAsPolicy(facts, session, ws, alreadyTried, true, snap, now));
                if (p.isPresent()) {
                    totals.admittedAtOnce.incrementAndGet();
                    return Optional.of(new Admission(p.get(), tickets.of(facts), 0));
                }
                cause = held.lastMiss();
            } else if (residencies.isResident(session) || peers.holds(session) || !engaged) {
                // A resident goes home at once; so does everyone while the pool does not thrash (the ledger is kept).
                Placement p = rooms.placeAsPolicy(facts, session, ws, alreadyTried, false, snap, now);
                totals.admittedAtOnce.incrementAndGet();
                return Optional.of(new Admission(p, tickets.open(facts, session), 0));
            }
            // A session in progress queues before newcomers (but behind their head when its turn has come); so does a retry.
            boolean inProgress = again || returnTimes.knows(session);
            if (!again && (inProgress ? !scheduler.aheadOfInProgress() : scheduler.isEmpty())) {
                Optional<Placement> p = rooms.placeWithinBudget(facts, session, ws, Set.of(), false, snap, now, first, held, inProgress);
                if (p.isPresent()) {
                    totals.admittedAtOnce.incrementAndGet();
                    return Optional.of(new Admission(p.get(), tickets.open(facts, session), 0));
                }
                cause = held.lastMiss();
            }
            gate.noRoom(now);
            WaitPrediction forecast = inProgress ? WaitPrediction.UNKNOWN : scheduler.forecastNewcomer(now);
            if (s.failFast() && forecast.passes(s.queueTimeoutNanos())) {
                totals.rejected.incrementAndGet();
                totals.rejectedAtOnce.incrementAndGet();
                long seconds = Math.max(1, Math.min(600, (forecast.correctedNanos() + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND));
                rejection = new Rejection(Rejection.Reason.PREDICTED_WAIT, "every replica's KV cache budget is taken by sessions in "
                        + "progress, and the wait for room is predicted at " + seconds + " s, longer than the queue timeout (queueTimeout); "
                        + "retry after the Retry-After delay", seconds);
            } else {
                PendingAttempt attempt = new PendingAttempt(facts, session, ws, waiter, Set.copyOf(alreadyTried), again, inProgress, first, forecast);
                if (scheduler.offer(attempt, now, service.orderKey(session, now), cause)) {
                    totals.queued.incrementAndGet();
                    return Optional.empty();
                }
                if (inProgress) {
                    // A step of a session in progress is never turned away: over the budget, where the policy sends it.
                    totals.admittedOverBudget.incrementAndGet();
                    Placement p = rooms.placeAsPolicy(facts, session, ws, alreadyTried, again, snap, now);
                    Placement over = p.withDecision(p.decision(), p.reason() + "; admission queue full, a session in progress is admitted over the KV budget");
                    return Optional.of(new Admission(over, again ? tickets.of(facts) : tickets.open(facts, session), 0));
                }
                totals.rejected.incrementAndGet();
                rejection = new Rejection(Rejection.Reason.QUEUE_FULL, "the router's admission queue is full (" + s.queueMax()
                        + " requests, queueMax): every replica's KV cache budget is taken by running sessions; retry after the "
                        + "Retry-After delay", scheduler.retryAfterSeconds(now));
            }
        }
        observer.rejected(rejection.reason().label());
        waiter.rejected(rejection);
        return Optional.empty();
    }

    /** The waiter's client went away: it leaves the queue at once. */
    public void cancel(Waiter waiter) {
        boolean removed;
        List<Runnable> tell = new ArrayList<>();
        synchronized (this) {
            removed = scheduler.cancel(waiter, clock.getAsLong(), tell);
        }
        tell.forEach(Runnable::run);
        if (removed) {
            observer.rejected("client_gone");
            pump();
        }
    }

    /**
     * Reads the engines' evidence, relieves replicas under pressure, times out newcomers, admits sessions in progress
     * that waited the wait bound over the budget, and admits in queue order whoever fits ({@link QueueScheduler}).
     * Called on a timer and whenever a request ends.
     */
    public void pump() {
        List<Runnable> tell = new ArrayList<>();
        synchronized (this) {
            long now = clock.getAsLong();
            PoolSnapshot snap = snapshot.apply(now);
            returnTimes.settleEnds(now, this::wentOnElsewhere);
            for (ReplicaView r : snap.replicas()) {
                if (!r.ready()) {
                    continue;
                }
                gate.look(r, now);
                revocations.relievePressure(r, null, now);
            }
            scheduler.admitWaiting(snap, gate.appliesAt(now), now, tell);
        }
        tell.forEach(Runnable::run);
    }

    /** A ticket closed: its session's step ended; a long resident yields at its pause while others wait. Under the lock. */
    private void stepEnded(String session, long now) {
        returnTimes.stepEnded(session, now);
        publishFact(session);
        if (residencies.stepEnded(session, now)) {
            revocations.yieldSlice(session, !scheduler.isEmpty(), rules.residencySliceNanos(), now);
        }
    }

    /**
     * The request is over, however it ended: admission hears it here and only here. A request still queued leaves
     * the queue; one admitted gives its step back (its session's residency counts from now as paused).
     */
    public void release(RequestFacts facts, Waiter waiter) {
        cancel(waiter);
        Ticket t;
        synchronized (this) {
            t = tickets.of(facts);
        }
        t.close();
    }

    /**
     * A step of the session reached this router: where a peer served its later steps (the cluster's fact is ahead of
     * what this router knows), its pause history, last end, last step and service become the fact's. Alone: nothing.
     */
    private void adoptFact(String session, String kind) {
        Optional<SessionFact> f = facts.get(session);
        if (f.isEmpty() || !f.get().aheadOf(returnTimes.steps(session))) {
            return;
        }
        SessionFact fact = f.get();
        returnTimes.adopt(session, kind, fact, epoch.toLocal(fact.lastEndEpochNanos()));
        thrash.adopt(session, fact.lastReplica(), fact.lastTokens());
        service.adopt(session, fact.serviceTokens(), epoch.toLocal(fact.serviceAtEpochNanos()));
    }

    /** A step of the session ended here: the cluster learns what this router knows of it now. */
    private void publishFact(String session) {
        if (facts == SessionFacts.NONE) {
            return;
        }
        SessionFact pauses = returnTimes.fact(session, epoch);
        if (pauses == null) {
            return;
        }
        facts.publish(new SessionFact(session, pauses.steps(), thrash.lastReplica(session), thrash.lastTokens(session),
                pauses.lastEndEpochNanos(), pauses.pauses(), pauses.lnPauseMean(), pauses.lnPauseM2(), pauses.lastPauseNanos(),
                service.lastTokens(session), epoch.toEpoch(service.lastAtNanos(session))));
    }

    /** Whether a peer served a step of the session after its {@code steps}-th: its pause here was no end. */
    private boolean wentOnElsewhere(String session, long steps) {
        return facts.get(session).map(f -> f.aheadOf(steps)).orElse(false);
    }

    /** This router's engagement evidence, for its peers' load reports. */
    public synchronized AdmissionEvidence evidence() {
        return gate.evidence();
    }

    private static String sessionOf(RequestFacts facts) {
        return facts.modelKey() + '\u0000' + facts.sessionKey().value();
    }

    /**
     * Every resident of the replica leaves the ledger (the replica left the pool, or drains): they are admitted afresh
     * wherever they go next. Returns how many there were.
     */
    public synchronized int forgetReplica(String replica) {
        gate.forget(replica);
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
        replies.served(outputTokens);
        gate.served(session, replica, promptTokens, cachedTokens, outputTokens, now);
    }

    /** The engine priority of the request's step after waiting {@code waitedNanos} here ({@link EnginePriority}). */
    public synchronized int enginePriority(RequestFacts facts, long waitedNanos) {
        return EnginePriority.of(service.at(sessionOf(facts), clock.getAsLong()), waitedNanos, rules.serviceHalfLifeNanos());
    }

    /** Whether the KV budget applies now (admission on, and the pool thrashes or it is set to apply always). */
    public synchronized boolean engaged() {
        return gate.appliesAt(clock.getAsLong());
    }

    public synchronized int queueLength() {
        return scheduler.size();
    }

    public synchronized double oldestWaitSeconds() {
        return scheduler.oldestWaitNanos(clock.getAsLong()) / 1e9;
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
        return report.budgetUsedRatio(snap);
    }

    /** Budget of a replica in tokens, for the API. */
    public synchronized long budgetTokens(ReplicaView r) {
        return report.budgetTokens(r);
    }

    /** Totals since start, and whether the budget applies, for the API and the capacity advisor. */
    public synchronized Map<String, Object> totals() {
        return report.totals(clock.getAsLong());
    }
}
