package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.Placement;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.admission.AdmissionController.Admission;
import io.lmwarden.router.placement.admission.AdmissionController.Rejection;
import io.lmwarden.router.placement.admission.AdmissionController.Ticket;
import io.lmwarden.router.placement.admission.AdmissionController.Waiter;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The requests waiting for admission and the order they leave in: newcomers past the queue timeout are turned away,
 * steps of sessions in progress that waited the bound are admitted over the budget, and the rest are admitted in queue
 * order wherever they fit, a waiting request keeping the replica it waits for from those behind it (backfill); a
 * newcomer that waited the bound is budgeted for a reply as long as the pool's recent ones ({@link ReplyLengths})
 * rather than its {@code max_tokens}. While steps of sessions in progress wait, the head of the newcomers' lane gets a
 * share of the admissions ({@link NewcomerShare}). It also forecasts a newcomer's wait and settles each queued
 * newcomer's forecast when it leaves ({@link WaitForecast}), and splits every wait by what it waited behind
 * ({@link WaitCauses}). Not thread-safe: the controller's lock guards it; waiters are told through the {@code tell}
 * list, outside the lock.
 */
final class QueueScheduler {

    static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Supplier<AdmissionRules> rules;
    private final Placer placer;
    private final LongFunction<PoolSnapshot> snapshot;
    private final RoomFinder rooms;
    private final EngagementGate gate;
    private final Tickets tickets;
    private final ResidencyTable residencies;
    private final PeerResidents peers;
    private final AdmissionTotals totals;
    private final AdmissionObserver observer;
    private final AdmissionQueue<PendingAttempt> queue;
    private final Map<Waiter, AdmissionQueue.Entry<PendingAttempt>> waiting = new HashMap<>();
    private final WaitForecast forecast = new WaitForecast();
    private final WaitCauses causes = new WaitCauses();
    private final NewcomerShare share = new NewcomerShare();
    private final ReplyLengths replies;

    QueueScheduler(Supplier<AdmissionRules> rules, Placer placer, LongFunction<PoolSnapshot> snapshot, RoomFinder rooms, EngagementGate gate, Tickets tickets,
                   ResidencyTable residencies, PeerResidents peers, AdmissionTotals totals, AdmissionObserver observer, ReplyLengths replies) {
        this.rules = rules;
        this.placer = placer;
        this.snapshot = snapshot;
        this.rooms = rooms;
        this.gate = gate;
        this.tickets = tickets;
        this.residencies = residencies;
        this.peers = peers;
        this.totals = totals;
        this.observer = observer;
        this.replies = replies;
        this.queue = new AdmissionQueue<>(rules.get().queueMax(), rules.get().queueTimeoutNanos(), rules.get().waitBoundNanos());
    }

    /**
     * Queues the attempt in its lane ({@code serviceKey}: its session's place among sessions in progress, before aging),
     * waiting behind {@code cause}; false when full.
     */
    boolean offer(PendingAttempt attempt, long now, double serviceKey, WaitCause cause) {
        Optional<AdmissionQueue.Entry<PendingAttempt>> entry = queue.offer(attempt, now, attempt.inProgress(), serviceKey);
        entry.ifPresent(e -> {
            waiting.put(attempt.waiter(), e);
            causes.queued(e.seq(), cause, now);
            if (!attempt.inProgress()) {
                forecast.queued(attempt.forecast(), rules.get().queueTimeoutNanos());
                forecast.waiting(queue.newcomers(), now);
            }
        });
        return entry.isPresent();
    }

    /** The waiter's client went away: returns whether it was waiting (it leaves the queue; the meters are told through {@code tell}). */
    boolean cancel(Waiter waiter, long now, List<Runnable> tell) {
        AdmissionQueue.Entry<PendingAttempt> e = waiting.remove(waiter);
        if (e == null || !queue.remove(e)) {
            return false;
        }
        withdrawn(e.waiter(), now);
        left(e, now, tell);
        return true;
    }

    /** The entry left the queue, however: its wait goes to its causes, and the meters are told. */
    private void left(AdmissionQueue.Entry<PendingAttempt> e, long now, List<Runnable> tell) {
        boolean inProgress = e.waiter().inProgress();
        long[] split = causes.left(e.seq(), inProgress, now - e.enqueuedAtNanos(), now);
        tell.add(() -> {
            for (int i = 0; i < split.length; i++) {
                if (split[i] > 0) {
                    observer.waitedBehind(WaitCauses.cause(i).label(), inProgress, split[i]);
                }
            }
        });
    }

    /** What {@code /api/replicas} shows of what the queue's waits waited behind. */
    Map<String, Object> waitCausesReport() {
        return causes.report();
    }

    /** A queued request left without an outcome: a newcomer's forecast is withdrawn. */
    private void withdrawn(PendingAttempt pending, long now) {
        if (!pending.inProgress()) {
            forecast.withdrawn(pending.forecast());
            forecast.waiting(queue.newcomers(), now);
        }
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /**
     * Whether a step of a session in progress arriving now would queue behind someone: a step of a session in progress,
     * or the head of the newcomers' lane when its turn has come ({@link NewcomerShare}; a newcomer queues behind anyone).
     */
    boolean aheadOfInProgress() {
        return queue.hasReturning() || (queue.newcomers() > 0 && share.newcomersTurn());
    }

    int size() {
        return queue.size();
    }

    long oldestWaitNanos(long now) {
        return queue.oldestWaitNanos(now);
    }

    /**
     * The wait of a newcomer arriving now, behind the newcomers queued now, at the pace newcomers have been admitted,
     * corrected by the forecast's recent error; {@link WaitPrediction#UNKNOWN} until that pace is known.
     */
    WaitPrediction forecastNewcomer(long now) {
        return forecast.predict(queue.newcomers(), now);
    }

    /** What {@code /api/replicas} shows of the forecast and its error. */
    Map<String, Object> forecastReport(long now) {
        return forecast.report(rules.get().failFast(), now);
    }

    /** What a rejected client is told to wait: as long as the oldest waiter has waited, 1 s to 10 min. */
    long retryAfterSeconds(long now) {
        long oldest = queue.oldestWaitNanos(now) / NANOS_PER_SECOND;
        return Math.max(1, Math.min(600, oldest));
    }

    /**
     * Times out newcomers, admits steps of sessions in progress that waited the bound over the budget, and admits in
     * queue order whoever fits ({@code applies}: the budget applies; the head of the newcomers' lane first when its
     * share says so), a waiting request keeping the replica it waits for from those behind it.
     */
    void admitWaiting(PoolSnapshot snap, boolean applies, long now, List<Runnable> tell) {
        for (AdmissionQueue.Entry<PendingAttempt> e : queue.removeExpired(now)) {
            waiting.remove(e.waiter().waiter());
            left(e, now, tell);
            totals.rejected.incrementAndGet();
            long waited = now - e.enqueuedAtNanos();
            Optional<ForecastError.Outcome> settled = forecast.timedOut(e.waiter().forecast(), waited, rules.get().queueTimeoutNanos());
            forecast.waiting(queue.newcomers(), now);
            settled.ifPresent(o -> tell.add(() -> observer.forecastSettled(o.usedNanos(), o.realisedNanos(), true)));
            long waitedSeconds = waited / NANOS_PER_SECOND;
            Rejection r = new Rejection(Rejection.Reason.QUEUE_TIMEOUT, "the request waited " + waitedSeconds + " s for a replica with "
                    + "room in its KV cache budget (queueTimeout); the pool is saturated, retry after the Retry-After delay",
                    retryAfterSeconds(now));
            tell.add(() -> {
                observer.rejected(r.reason().label());
                e.waiter().waiter().rejected(r);
            });
        }
        for (AdmissionQueue.Entry<PendingAttempt> e : queue.overdue(now)) {
            if (admit(e, false, now, tell, new HeldRooms()) && gate.appliesAt(now)) {
                totals.admittedAtWaitBound.incrementAndGet();
            }
        }
        // In queue order; one that must wait holds the replica it waits for, and those behind it may take room
        // only elsewhere (backfill): a session waiting for its warm home does not keep a newcomer from a replica
        // with room, and no one behind takes the room it waits for. Newcomers stay first come, first served among
        // themselves: the first that must wait keeps every newcomer behind it waiting. When the newcomers' turn has come
        // (NewcomerShare), the head of their lane goes first: the room it waits for is held from the steps of sessions
        // in progress, which go elsewhere, and at the bound over the budget (above).
        HeldRooms heldFor = new HeldRooms();
        long ready = snap.replicas().stream().filter(ReplicaView::ready).count();
        WaitCause scanEnded = null;
        boolean newcomerWaits = false;
        for (AdmissionQueue.Entry<PendingAttempt> e : order()) {
            if (scanEnded == null && heldFor.size() >= ready) {
                scanEnded = heldFor.holdersOfAll();
            }
            if (scanEnded != null) {
                causes.looked(e.seq(), scanEnded, now);
                continue;
            }
            boolean newcomer = !e.waiter().inProgress();
            if (newcomer && newcomerWaits) {
                causes.looked(e.seq(), WaitCause.NEWCOMERS_AHEAD, now);
                continue;
            }
            if (!admit(e, applies, now, tell, heldFor)) {
                causes.looked(e.seq(), heldFor.lastMiss(), now);
                newcomerWaits |= newcomer;
            }
        }
    }

    /** The queue's order, the head of the newcomers' lane first when its turn has come while sessions in progress wait. */
    private List<AdmissionQueue.Entry<PendingAttempt>> order() {
        List<AdmissionQueue.Entry<PendingAttempt>> order = queue.inOrder();
        int returning = order.size() - queue.newcomers();
        if (returning > 0 && returning < order.size() && share.newcomersTurn()) {
            order.add(0, order.remove(returning));
        }
        return order;
    }

    /**
     * Admits the queued request if it may go now ({@code withinBudget}: only where its working set fits; else where the
     * policy sends it); returns whether it left the queue.
     */
    private boolean admit(AdmissionQueue.Entry<PendingAttempt> e, boolean withinBudget, long now, List<Runnable> tell, HeldRooms heldFor) {
        PendingAttempt pending = e.waiter();
        AdmissionRules s = rules.get();
        long waited = now - e.enqueuedAtNanos();
        // A newcomer that waited the bound is budgeted for the replies the pool gives, not the max_tokens it asks.
        WorkingSet ws = pending.workingSet();
        int reply = replies.p90();
        if (!pending.inProgress() && waited >= s.waitBoundNanos() && reply > 0) {
            ws = ws.withReplyAtMost(reply);
        }
        Optional<Placement> placed;
        try {
            placed = place(pending, ws, s.enabled(), withinBudget, now, heldFor);
        } catch (NoReplicaAvailableException ex) {
            queue.remove(e);
            waiting.remove(pending.waiter());
            withdrawn(pending, now);
            left(e, now, tell);
            Rejection r = new Rejection(Rejection.Reason.NO_REPLICA, ex.getMessage(), 1);
            tell.add(() -> pending.waiter().rejected(r));
            return true;
        }
        if (placed.isEmpty()) {
            return false;
        }
        queue.remove(e);
        waiting.remove(pending.waiter());
        left(e, now, tell);
        share.admitted(pending.inProgress(), queue.newcomers() > 0);
        totals.admittedFromQueue.incrementAndGet();
        if (!withinBudget && gate.appliesAt(now)) {
            totals.admittedOverBudget.incrementAndGet();
        }
        String smaller = "";
        if (ws != pending.workingSet() && withinBudget) {
            totals.admittedWithSmallerReply.incrementAndGet();
            smaller = "; reply budgeted at " + reply + " tokens (the pool's recent replies), not max_tokens " + pending.facts().maxTokens();
        }
        if (!pending.inProgress()) {
            forecast.admitted(pending.forecast(), waited, now)
                    .ifPresent(o -> tell.add(() -> observer.forecastSettled(o.usedNanos(), o.realisedNanos(), false)));
            forecast.waiting(queue.newcomers(), now);
        }
        Placement p = pending.firstChoice().announce(placed.get());
        Placement withWait = p.withDecision(p.decision(), String.format("queued %.1f s; %s%s", waited / 1e9, p.reason(), smaller));
        Ticket t = pending.again() ? tickets.of(pending.facts())
                : s.enabled() ? tickets.open(pending.facts(), pending.session()) : Ticket.NONE;
        Admission a = new Admission(withWait, t, waited);
        tell.add(() -> {
            observer.admittedAfterWait(waited);
            pending.waiter().admitted(a);
        });
        return true;
    }

    /** Where the queued request may go now, if anywhere. */
    private Optional<Placement> place(PendingAttempt pending, WorkingSet ws, boolean enabled, boolean withinBudget, long now, HeldRooms heldFor)
            throws NoReplicaAvailableException {
        PoolSnapshot snap = snapshot.apply(now);
        if (!enabled) {
            return Optional.of(placer.place(pending.facts(), snap, pending.tried(), now));
        }
        if (!withinBudget || (!pending.again() && (residencies.isResident(pending.session()) || peers.holds(pending.session())))) {
            Placement p = rooms.placeAsPolicy(pending.facts(), pending.session(), ws, pending.tried(), pending.again(), snap, now);
            pending.firstChoice().offer(p);
            return Optional.of(p);
        }
        return rooms.placeWithinBudget(pending.facts(), pending.session(), ws, pending.tried(), pending.again(), snap, now,
                pending.firstChoice(), heldFor, pending.inProgress());
    }
}
