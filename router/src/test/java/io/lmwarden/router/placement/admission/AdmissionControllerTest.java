package io.lmwarden.router.placement.admission;

import io.lmwarden.router.config.SpillThreshold;
import io.lmwarden.router.placement.policy.AffinityPolicy;
import io.lmwarden.router.placement.pins.AffinityTable;
import io.lmwarden.router.placement.filter.NoReplicaAvailableException;
import io.lmwarden.router.placement.Placer;
import io.lmwarden.router.placement.prefix.PrefillRates;
import io.lmwarden.router.placement.prefix.HeldTokens;
import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.placement.pins.SessionHomes;
import io.lmwarden.router.pool.PoolSnapshot;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.session.PromptShape;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.SessionKey;
import io.lmwarden.router.session.SessionKeySource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The controller on two replicas of 100 blocks each (1,600 tokens, budget 1.0), with the real affinity
 * policy and placer; sessions of 40 prompt blocks + 1 reply block, none shared: two fit per replica.
 */
class AdmissionControllerTest {

    private static final long SECOND = 1_000_000_000L;
    /** 0.3 ms per token: holding a session costs what recomputing it does after 0.3 ms × 1,600 tokens = 0.48 s. */
    private static final PrefillRates PREFILL = new PrefillRates(0.3);

    private final AtomicLong clock = new AtomicLong(1);
    private final List<String> rejections = new ArrayList<>();
    private final List<Long> waits = new ArrayList<>();
    private AdmissionController controller;
    private AffinityTable affinity;
    private SessionHomes homes;
    private AffinityPolicy policy;
    private PrefixIndexes indexes;
    private Placer placer;
    private List<ReplicaView> replicas;
    private AdmissionRules settings;

    private final class Recorder implements AdmissionController.Waiter {
        final String name;
        AdmissionController.Admission admission;
        AdmissionController.Rejection rejection;

        Recorder(String name) {
            this.name = name;
        }

        @Override
        public void admitted(AdmissionController.Admission a) {
            admission = a;
        }

        @Override
        public void rejected(AdmissionController.Rejection r) {
            rejection = r;
        }
    }

    @BeforeEach
    void setUp() {
        affinity = new AffinityTable(1000, Duration.ofHours(1));
        SessionHomes homes = new SessionHomes(affinity);
        policy = new AffinityPolicy(homes, SpillThreshold.parse("auto"), 32);
        this.homes = homes;
        indexes = new PrefixIndexes(1600);
        placer = new Placer(() -> policy, indexes);
        replicas = List.of(replica("r0"), replica("r1"));
        settings = AdmissionRules.engaged(1.0, 5 * SECOND, 20 * SECOND, 3, 30 * SECOND, SECOND);
        controller = new AdmissionController(settings, placer, now -> new PoolSnapshot(replicas, now), () -> policy, homes, HeldTokens.estimatesOnly(indexes), PREFILL,
                1600, new AdmissionObserver() {
                    @Override
                    public void admittedAfterWait(long waitedNanos) {
                        waits.add(waitedNanos);
                    }

                    @Override
                    public void rejected(String reason) {
                        rejections.add(reason);
                    }
                }, clock::get);
    }

    /** A controller on the same pool, policy and clock with other rules and meters. */
    private AdmissionController controllerWith(AdmissionRules rules, AdmissionObserver observer) {
        return new AdmissionController(rules, placer, now -> new PoolSnapshot(replicas, now), () -> policy, homes,
                HeldTokens.estimatesOnly(indexes), PREFILL, 1600, observer, clock::get);
    }

    private static ReplicaView replica(String id) {
        return new ReplicaView(id, "http://" + id, true, 0, 0, 0, 0, 0, 0, null, false);
    }

    private static RequestFacts step(String session, int promptBlocks) {
        return step(session, promptBlocks, 16);
    }

    private static RequestFacts step(String session, int promptBlocks, int maxTokens) {
        long base = Math.abs(session.hashCode()) * 1_000_000L;
        long[] hashes = LongStream.range(0, promptBlocks).map(i -> base + i).toArray();
        return new RequestFacts(ApiDialect.values()[0], "m", true, new SessionKey(session, SessionKeySource.SESSION_ID_HEADER),
                new PromptShape(hashes, promptBlocks * 64, promptBlocks * 16, List.of()), maxTokens, Optional.empty(), Optional.empty());
    }

    private Optional<AdmissionController.Admission> submit(String session, int blocks, Recorder w) throws NoReplicaAvailableException {
        return controller.submit(step(session, blocks), Set.of(), w);
    }

    /**
     * Fills both replicas with two running sessions each, after four earlier steps each with pauses of 50 ms: sessions
     * that come back well inside the break-even (0.48 s).
     */
    private List<AdmissionController.Admission> fillAfterShortPauses() throws Exception {
        for (int step = 0; step < 4; step++) {
            List<AdmissionController.Admission> running = fill();
            running.forEach(a -> a.ticket().close());
            clock.addAndGet(SECOND / 20);
        }
        return fill();
    }

    /** Fills both replicas with two running sessions each. */
    private List<AdmissionController.Admission> fill() throws Exception {
        List<AdmissionController.Admission> running = new ArrayList<>();
        for (String s : List.of("a", "b", "c", "d")) {
            running.add(submit(s, 40, new Recorder(s)).orElseThrow());
        }
        return running;
    }

    /**
     * A second router of the same cluster (shared pins), seeing this one's residents as its peers'. Its
     * own residents are not reported back: enough to show what it does with another router's.
     */
    private AdmissionController peerOf(AdmissionController first) {
        PeerResidents fromFirst = new PeerResidents() {
            @Override
            public List<PeerResident> on(String replicaId) {
                return first.residents().stream().filter(p -> p.replica().equals(replicaId)).toList();
            }

            @Override
            public boolean holds(String session) {
                return first.residents().stream().anyMatch(p -> p.session().equals(session));
            }
        };
        return new AdmissionController(settings, placer, now -> new PoolSnapshot(replicas, now), () -> policy, homes, HeldTokens.estimatesOnly(indexes), PREFILL,
                1600, new AdmissionObserver() {
                    @Override
                    public void admittedAfterWait(long waitedNanos) {
                    }

                    @Override
                    public void rejected(String reason) {
                    }
                }, clock::get, ClusterShare.residents(fromFirst));
    }

    @Test
    void aSessionResidentThroughAnotherRouterGoesHomeAtOnceThereAndCountsOnce() throws Exception {
        List<AdmissionController.Admission> running = fill();
        running.forEach(a -> a.ticket().close());
        AdmissionController second = peerOf(controller);
        // Every replica's budget is taken by the first router's residents: a newcomer at the second waits.
        Recorder e = new Recorder("e");
        assertThat(second.submit(step("e", 40), Set.of(), e)).isEmpty();
        // a's next step reaches the second router: a is resident (through the first), so it goes home at once,
        // although a newcomer waits there.
        Optional<AdmissionController.Admission> next = second.submit(step("a", 42), Set.of(), new Recorder("a2"));
        assertThat(next).isPresent();
        assertThat(next.get().placement().replica().id()).isEqualTo(running.get(0).placement().replica().id());
        assertThat(next.get().waitedNanos()).isZero();
        // The second router counts a once (as its own now) and the first router's b beside it: the replica is full, e still waits.
        second.pump();
        assertThat(e.admission).isNull();
        assertThat(second.queueLength()).isEqualTo(1);
    }

    @Test
    void belowTheBudgetEveryoneIsAdmittedAtOnceAndSpread() throws Exception {
        List<AdmissionController.Admission> running = fill();
        assertThat(running).extracting(a -> a.placement().replica().id()).containsExactlyInAnyOrder("r0", "r0", "r1", "r1");
        assertThat(controller.queueLength()).isZero();
        assertThat(running).allMatch(a -> a.waitedNanos() == 0);
    }

    @Test
    void aNewcomerWaitsWhileThePausedResidentsAreLikelyToReturnAndGetsTheRoomOfOneThatStaysAway() throws Exception {
        List<AdmissionController.Admission> running = fillAfterShortPauses();
        Recorder e = new Recorder("e");
        assertThat(submit("e", 40, e)).isEmpty();
        assertThat(controller.queueLength()).isEqualTo(1);
        // a's step ends; a has always come back within 50 ms, well inside the 0.48 s break-even: it stays resident.
        running.get(0).ticket().close();
        assertThat(e.admission).isNull();
        // Two seconds later a is unlikely to come back soon: holding its KV costs more than recomputing it.
        clock.addAndGet(2 * SECOND);
        controller.pump();
        assertThat(e.admission).isNotNull();
        assertThat(e.admission.placement().replica().id()).isEqualTo(running.get(0).placement().replica().id());
        assertThat(e.admission.waitedNanos()).isEqualTo(2 * SECOND);
        assertThat(waits).containsExactly(2 * SECOND);
        assertThat(controller.totals().get("revokedUnderPressure")).isEqualTo(1L);
    }

    @Test
    void residentSessionsNeverWaitBehindNewcomersEvenWhenTheirWorkingSetGrows() throws Exception {
        List<AdmissionController.Admission> running = fillAfterShortPauses();
        Recorder e = new Recorder("e");
        assertThat(submit("e", 40, e)).isEmpty();
        running.get(0).ticket().close();
        clock.addAndGet(SECOND / 20);
        // a's next step is bigger and the replica is full: it still goes home at once.
        Optional<AdmissionController.Admission> next = submit("a", 55, new Recorder("a2"));
        assertThat(next).isPresent();
        assertThat(next.get().placement().replica().id()).isEqualTo(running.get(0).placement().replica().id());
        assertThat(controller.queueLength()).isEqualTo(1);
    }

    @Test
    void theQueueAdmitsInArrivalOrder() throws Exception {
        List<AdmissionController.Admission> running = fill();
        Recorder e = new Recorder("e");
        Recorder f = new Recorder("f");
        submit("e", 40, e);
        clock.addAndGet(1);
        submit("f", 40, f);
        // A newcomer that would fit does not overtake the ones already waiting.
        running.get(0).ticket().close();
        clock.addAndGet(6 * SECOND);
        controller.pump();
        assertThat(e.admission).isNotNull();
        assertThat(f.admission).isNull();
        running.get(1).ticket().close();
        running.get(2).ticket().close();
        clock.addAndGet(6 * SECOND);
        controller.pump();
        assertThat(f.admission).isNotNull();
    }

    @Test
    void aFullQueueRejectsAtOnceWithRetryAfter() throws Exception {
        fill();
        for (String s : List.of("e", "f", "g")) {
            submit(s, 40, new Recorder(s));
        }
        clock.addAndGet(3 * SECOND);
        Recorder h = new Recorder("h");
        assertThat(submit("h", 40, h)).isEmpty();
        assertThat(h.rejection.reason()).isEqualTo(AdmissionController.Rejection.Reason.QUEUE_FULL);
        assertThat(h.rejection.retryAfterSeconds()).isEqualTo(3);
        assertThat(h.rejection.message()).contains("queueMax");
        assertThat(rejections).containsExactly("queue_full");
    }

    @Test
    void aRequestWaitingPastTheTimeoutIsRejected() throws Exception {
        fill();
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        clock.addAndGet(29 * SECOND);
        controller.pump();
        assertThat(e.rejection).isNull();
        clock.addAndGet(SECOND);
        controller.pump();
        assertThat(e.rejection.reason()).isEqualTo(AdmissionController.Rejection.Reason.QUEUE_TIMEOUT);
        assertThat(e.rejection.message()).contains("waited 30 s");
        assertThat(controller.queueLength()).isZero();
    }

    @Test
    void aClientThatDisconnectsLeavesTheQueueAtOnceAndTheNextMovesUp() throws Exception {
        List<AdmissionController.Admission> running = fill();
        Recorder e = new Recorder("e");
        Recorder f = new Recorder("f");
        submit("e", 40, e);
        submit("f", 40, f);
        controller.cancel(e);
        assertThat(controller.queueLength()).isEqualTo(1);
        assertThat(rejections).containsExactly("client_gone");
        running.get(0).ticket().close();
        clock.addAndGet(6 * SECOND);
        controller.pump();
        assertThat(e.admission).isNull();
        assertThat(f.admission).isNotNull();
    }

    @Test
    void aSessionLikelyToHaveEndedGivesUpItsResidencyAtOnceUnderPressure() throws Exception {
        // Sessions the estimate knows nothing of pause like the prior (5 s median), ten times the 0.48 s break-even.
        List<AdmissionController.Admission> running = fill();
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        running.get(0).ticket().close();
        assertThat(e.admission).isNotNull();
        assertThat(e.admission.placement().reason()).contains("paused resident");
    }

    @Test
    void aSessionInProgressQueuesBeforeNewcomers() throws Exception {
        List<AdmissionController.Admission> running = fill();
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        // a pauses and loses its residency (its pause is likely long); c and d (the other replica) keep going.
        running.get(0).ticket().close();
        assertThat(e.admission).isNotNull();   // e took a's place
        Recorder f = new Recorder("f");
        submit("f", 40, f);
        // a comes back after a pause like the prior's (an instant pause would teach the pool that residents return at once).
        clock.addAndGet(5 * SECOND);
        Recorder a = new Recorder("a");
        assertThat(submit("a", 45, a)).isEmpty();
        // The next room (c's) goes to a, although f arrived first.
        running.get(2).ticket().close();
        assertThat(a.admission).isNotNull();
        assertThat(f.admission).isNull();
        running.get(3).ticket().close();
        assertThat(f.admission).isNotNull();
    }

    @Test
    void whileSessionsInProgressWaitTheHeadOfTheNewcomersGetsEveryThirdRoom() throws Exception {
        List<AdmissionController.Admission> running = fill();
        // e and f take the rooms of a and b, whose pauses are likely long.
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        running.get(0).ticket().close();
        Recorder f = new Recorder("f");
        submit("f", 40, f);
        running.get(1).ticket().close();
        assertThat(e.admission).isNotNull();
        assertThat(f.admission).isNotNull();
        Recorder g = new Recorder("g");
        assertThat(submit("g", 40, g)).isEmpty();
        // a and b come back after pauses like the prior's: sessions in progress, ahead of g.
        clock.addAndGet(5 * SECOND);
        Recorder a = new Recorder("a");
        Recorder b = new Recorder("b");
        assertThat(submit("a", 45, a)).isEmpty();
        assertThat(submit("b", 45, b)).isEmpty();
        running.get(2).ticket().close();
        running.get(3).ticket().close();
        assertThat(a.admission).isNotNull();
        assertThat(b.admission).isNotNull();
        assertThat(g.admission).isNull();
        // Two steps of sessions in progress went while g waited: the next room is g's, though c, a session in progress
        // that lost its room to a, comes back before it frees.
        clock.addAndGet(5 * SECOND);
        Recorder c = new Recorder("c");
        assertThat(submit("c", 45, c)).isEmpty();
        e.admission.ticket().close();
        assertThat(g.admission).isNotNull();
        assertThat(c.admission).isNull();
        // Then the sessions in progress go first again.
        Recorder h = new Recorder("h");
        assertThat(submit("h", 40, h)).isEmpty();
        f.admission.ticket().close();
        assertThat(c.admission).isNotNull();
        assertThat(h.admission).isNull();
    }

    @Test
    void theNewcomersShareNeverKeepsAStepOfASessionInProgressPastTheBound() throws Exception {
        controller = controllerWith(settings.withWaitBound(5 * SECOND), AdmissionObserver.NONE);
        List<AdmissionController.Admission> running = fill();
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        running.get(0).ticket().close();
        Recorder f = new Recorder("f");
        submit("f", 40, f);
        running.get(1).ticket().close();
        Recorder g = new Recorder("g");
        assertThat(submit("g", 40, g)).isEmpty();
        clock.addAndGet(4 * SECOND);
        Recorder a = new Recorder("a");
        Recorder b = new Recorder("b");
        assertThat(submit("a", 45, a)).isEmpty();
        assertThat(submit("b", 45, b)).isEmpty();
        running.get(2).ticket().close();
        running.get(3).ticket().close();
        clock.addAndGet(SECOND);
        Recorder c = new Recorder("c");
        assertThat(submit("c", 45, c)).isEmpty();
        // g's turn: it waits ahead of c for the next room, which does not free; c goes over the budget at its bound.
        clock.addAndGet(5 * SECOND - 1);
        controller.pump();
        assertThat(c.admission).isNull();
        clock.addAndGet(1);
        controller.pump();
        assertThat(c.admission).isNotNull();
        assertThat(c.admission.waitedNanos()).isEqualTo(5 * SECOND);
        assertThat(g.admission).isNull();
        assertThat(g.rejection).isNull();
        assertThat(controller.totals()).containsEntry("admittedAtWaitBound", 1L);
    }

    @Test
    void aNewcomerBehindASessionWaitingForItsWarmHomeIsAdmittedWhereThereIsRoom() throws Exception {
        // Two sessions running on each replica: a and its neighbour on a's home, two on the other.
        List<AdmissionController.Admission> running = fill();
        String aHome = running.get(0).placement().replica().id();
        List<Integer> atHome = new ArrayList<>();
        List<Integer> elsewhere = new ArrayList<>();
        for (int i = 1; i < running.size(); i++) {
            (running.get(i).placement().replica().id().equals(aHome) ? atHome : elsewhere).add(i);
        }
        assertThat(atHome).hasSize(1);
        String other = running.get(elsewhere.get(0)).placement().replica().id();
        ReplicaView home = replicas.stream().filter(r -> r.id().equals(aHome)).findFirst().orElseThrow();
        indexes.accepted(home, step("a", 45).shape());
        // e takes a's room at its pause; a comes back to a full home that still holds its prefix, and waits for it.
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        running.get(0).ticket().close();
        assertThat(e.admission.placement().replica().id()).isEqualTo(aHome);
        clock.addAndGet(5 * SECOND);
        Recorder a = new Recorder("a");
        assertThat(submit("a", 45, a)).isEmpty();
        // A session on the other replica pauses: the newcomer f, queued behind a, takes that room at once (a waiting
        // head no longer blocks the queue), and a keeps waiting for its warm home.
        Recorder f = new Recorder("f");
        assertThat(submit("f", 40, f)).isEmpty();
        running.get(elsewhere.get(0)).ticket().close();
        assertThat(f.admission).as("f, admitted behind a waiting head").isNotNull();
        assertThat(f.admission.placement().replica().id()).isEqualTo(other);
        assertThat(a.admission).isNull();
        // a's neighbour pauses: room at home, and a goes there.
        running.get(atHome.get(0)).ticket().close();
        assertThat(a.admission).isNotNull();
        assertThat(a.admission.placement().replica().id()).isEqualTo(aHome);
    }

    @Test
    void aStepOfASessionInProgressIsNeverTurnedAwayButANewcomerIs() throws Exception {
        List<AdmissionController.Admission> running = fillAfterShortPauses();
        // a and b pause (likely back soon) and come back while the pool is full: a ahead of the newcomer e.
        running.get(0).ticket().close();
        Recorder e = new Recorder("e");
        assertThat(submit("e", 40, e)).isEmpty();
        // a's residency lapses under pressure when it stays away; it returns behind nobody, but finds no room.
        clock.addAndGet(2 * SECOND);
        controller.pump();
        assertThat(e.admission).isNotNull();
        Recorder a = new Recorder("a");
        assertThat(submit("a", 40, a)).isEmpty();
        // Past the queue timeout (30 s): a is admitted over the budget, never rejected.
        clock.addAndGet(31 * SECOND);
        controller.pump();
        assertThat(a.rejection).isNull();
        assertThat(a.admission).isNotNull();
        assertThat(controller.totals().get("admittedOverBudget")).isEqualTo(1L);
        assertThat(rejections).isEmpty();
    }

    @Test
    void aNewcomerWhosePredictedWaitExceedsTheQueueTimeoutIsToldAtOnce() throws Exception {
        List<AdmissionController.Admission> running = fill();
        newcomersWaitInTurn(running, 3 + ForecastError.MIN_OUTCOMES);
        // One waits now (predicted 20 s, inside the 30 s timeout); the next would wait about 2 × 20 s. It is told at once.
        Recorder first = new Recorder("x0");
        submit("x0", 40, first);
        assertThat(first.rejection).isNull();
        Recorder late = new Recorder("late");
        assertThat(submit("late", 40, late)).isEmpty();
        assertThat(late.rejection).isNotNull();
        assertThat(late.rejection.reason()).isEqualTo(AdmissionController.Rejection.Reason.PREDICTED_WAIT);
        assertThat(late.rejection.retryAfterSeconds()).isEqualTo(40L);
        assertThat(controller.queueLength()).isEqualTo(1);
    }

    @Test
    @SuppressWarnings("unchecked")
    void withoutFailFastANewcomerPastItsForecastQueuesAndItsTimeoutIsSettledAsAtLeastTheTimeout() throws Exception {
        List<long[]> settled = new ArrayList<>();
        controller = new AdmissionController(settings.withFailFast(false), placer, now -> new PoolSnapshot(replicas, now), () -> policy,
                homes, HeldTokens.estimatesOnly(indexes), PREFILL, 1600, new AdmissionObserver() {
                    @Override
                    public void admittedAfterWait(long waitedNanos) {
                    }

                    @Override
                    public void rejected(String reason) {
                        rejections.add(reason);
                    }

                    @Override
                    public void forecastSettled(long predictedNanos, long realisedNanos, boolean timedOut) {
                        settled.add(new long[] {predictedNanos, realisedNanos, timedOut ? 1 : 0});
                    }
                }, clock::get);
        List<AdmissionController.Admission> running = fill();
        newcomersWaitInTurn(running, 3 + ForecastError.MIN_OUTCOMES);
        settled.clear();
        Recorder first = new Recorder("x0");
        submit("x0", 40, first);
        // Forecast at 40 s, past the 30 s timeout: it queues all the same.
        Recorder late = new Recorder("late");
        assertThat(submit("late", 40, late)).isEmpty();
        assertThat(late.rejection).isNull();
        assertThat(controller.queueLength()).isEqualTo(2);
        // x0 goes after 10 s (forecast 20 s); late waits out the timeout.
        clock.addAndGet(10 * SECOND);
        running.get(running.size() - 1).ticket().close();
        assertThat(first.admission).isNotNull();
        clock.addAndGet(31 * SECOND);
        controller.pump();
        assertThat(late.rejection.reason()).isEqualTo(AdmissionController.Rejection.Reason.QUEUE_TIMEOUT);
        assertThat(settled).hasSize(2);
        assertThat(settled.get(0)).containsExactly(20 * SECOND, 10 * SECOND, 0);
        assertThat(settled.get(1)).containsExactly(40 * SECOND, 41 * SECOND, 1);
        Map<String, Object> forecast = (Map<String, Object>) controller.totals().get("forecast");
        long measuredFirst = ForecastError.MIN_OUTCOMES;
        assertThat(forecast).containsEntry("failFast", false).containsEntry("predictions", measuredFirst + 2).containsEntry("unpredicted", 3L)
                .containsEntry("admitted", measuredFirst + 1).containsEntry("timedOut", 1L).containsEntry("correction", 1.0);
        assertThat(forecast.get("pastTimeout").toString()).isEqualTo("{queued=1, timedOut=1}");
        assertThat(forecast.get("recent").toString()).contains("outcomes=" + (measuredFirst + 2), "timedOut=1");
    }

    /**
     * {@code n} newcomers in turn each wait 20 s for the room of a resident that ends: admissions from the queue come
     * every 20 s, and once the pace is known each is forecast at 20 s and waits 20 s (the forecast's error measured, 1).
     */
    private void newcomersWaitInTurn(List<AdmissionController.Admission> running, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            Recorder w = new Recorder("w" + i);
            assertThat(submit("w" + i, 40, w)).isEmpty();
            clock.addAndGet(20 * SECOND);
            running.get(i % running.size()).ticket().close();
            assertThat(w.admission).as("w%d", i).isNotNull();
            running.set(i % running.size(), w.admission);
        }
    }

    @Test
    void aLongResidentYieldsAtItsNextPauseWhileOthersWait() throws Exception {
        List<AdmissionController.Admission> running = fill();
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        clock.addAndGet(21 * SECOND);
        // Resident past the 20 s slice: at its pause it yields, and e takes its place without waiting out the idle limit.
        running.get(0).ticket().close();
        assertThat(e.admission).isNotNull();
        assertThat(controller.totals().get("yieldedSlice")).isEqualTo(1L);
    }

    /**
     * Four sessions of six steps on the evidence-engaged default, each step's prompt missing from the engine's cache, the
     * given pause between steps. Returns whether admission engaged.
     */
    private boolean engagesOnMissesAfterPausesOf(long pauseNanos) throws Exception {
        controller = new AdmissionController(settings.withAlwaysEngaged(false), placer, now -> new PoolSnapshot(replicas, now), () -> policy,
                homes, HeldTokens.estimatesOnly(indexes), PREFILL, 1600, new AdmissionObserver() {
                    @Override
                    public void admittedAfterWait(long waitedNanos) {
                    }

                    @Override
                    public void rejected(String reason) {
                    }
                }, clock::get);
        controller.pump();
        for (int step = 0; step < 6; step++) {
            List<AdmissionController.Admission> running = new ArrayList<>();
            for (String session : List.of("a", "b", "c", "d")) {
                RequestFacts f = step(session, 10 + step);
                AdmissionController.Admission a = controller.submit(f, Set.of(), new Recorder(session)).orElseThrow();
                controller.served(f, a.placement().replica().id(), f.shape().estimatedTokens(), 0, 16);
                running.add(a);
            }
            clock.addAndGet(SECOND / 10);
            running.forEach(a -> a.ticket().close());
            clock.addAndGet(pauseNanos);
            controller.pump();
        }
        return controller.engaged();
    }

    @Test
    void missesAfterPausesWellInsideTheBreakEvenEngageAdmission() throws Exception {
        // The break-even here is 0.48 s (0.3 ms per token × a 1,600-token budget): pauses of 50 ms are a tenth of it.
        assertThat(engagesOnMissesAfterPausesOf(SECOND / 20)).isTrue();
    }

    @Test
    void missesAfterPausesAsLongAsTheBreakEvenDoNotEngageAdmission() throws Exception {
        // Pauses of 0.4 s: each miss is one holding could have saved (shorter than the break-even), but holding a
        // resident that long saves almost nothing and idles its reserved KV: the default keeps routing as affinity.
        assertThat(engagesOnMissesAfterPausesOf(SECOND * 4 / 10)).isFalse();
        assertThat(controller.totals().get("thrash").toString()).contains("missedSteps");
    }

    @Test
    void switchedOffNothingWaits() throws Exception {
        fill();
        Recorder e = new Recorder("e");
        submit("e", 40, e);
        controller.setEnabled(false);
        assertThat(e.admission).isNotNull();
        assertThat(submit("f", 40, new Recorder("f"))).isPresent();
    }
    @Test
    void aRetryIsPlacedWithinTheBudgetOrWaitsAheadOfNewcomers() throws Exception {
        // a and c on one replica, b and d on the other, all four running.
        RequestFacts a = step("a", 40);
        Recorder aw = new Recorder("a");
        AdmissionController.Admission first = controller.submit(a, Set.of(), aw).orElseThrow();
        List<AdmissionController.Admission> others = new ArrayList<>();
        for (String s : List.of("b", "c", "d")) {
            others.add(submit(s, 40, new Recorder(s)).orElseThrow());
        }
        String failed = first.placement().replica().id();
        String other = failed.equals("r0") ? "r1" : "r0";
        Recorder e = new Recorder("e");
        assertThat(submit("e", 40, e)).isEmpty();

        // a's attempt failed on its replica before any byte: the other replica's two residents fill its budget.
        Recorder retry = new Recorder("a-retry");
        assertThat(controller.submit(a, Set.of(failed), retry)).as("no room for the retry: it waits").isEmpty();
        assertThat(controller.residentLoads().get(other).residentSessions()).isEqualTo(2);
        // One resident of the other replica pauses past the idle limit: the room there goes to the retry, ahead of e,
        // which arrived first; e takes the room a's move left on the failed replica.
        others.stream().filter(x -> x.placement().replica().id().equals(other)).findFirst().orElseThrow().ticket().close();
        clock.addAndGet(6 * SECOND);
        controller.pump();
        assertThat(retry.admission).isNotNull();
        assertThat(retry.admission.placement().replica().id()).isEqualTo(other);
        assertThat(retry.admission.placement().decision()).isEqualTo(io.lmwarden.router.placement.Decision.FALLBACK);
        assertThat(e.admission).isNotNull();
        assertThat(e.admission.placement().replica().id()).isEqualTo(failed);
        // a's residency moved with it, counted once: two residents per replica, as the budget holds.
        assertThat(controller.residentLoads().get(other).residentSessions()).isEqualTo(2);
        assertThat(controller.residentLoads().get(failed).residentSessions()).isEqualTo(2);
        // The request holds one admission however many attempts it takes: ending it ends a's step once.
        controller.release(a, retry);
        assertThat(controller.residentLoads().get(other).inFlight()).isEqualTo(1);
    }

    @Test
    void aRetryThatFitsElsewhereGoesAtOnceAndItsResidencyMoves() throws Exception {
        RequestFacts a = step("a", 40);
        AdmissionController.Admission first = controller.submit(a, Set.of(), new Recorder("a")).orElseThrow();
        String failed = first.placement().replica().id();
        Optional<AdmissionController.Admission> retry = controller.submit(a, Set.of(failed), new Recorder("a-retry"));
        assertThat(retry).isPresent();
        assertThat(retry.get().placement().replica().id()).isNotEqualTo(failed);
        assertThat(controller.residentLoads().get(failed).residentSessions()).isZero();
        assertThat(controller.residents()).singleElement().satisfies(p -> assertThat(p.replica()).isEqualTo(retry.get().placement().replica().id()));
    }

    @Test
    void aStepOfASessionInProgressWaitsNoLongerThanTheBoundThenGoesOverTheBudget() throws Exception {
        controller = controllerWith(settings.withWaitBound(5 * SECOND), AdmissionObserver.NONE);
        List<AdmissionController.Admission> running = fillAfterShortPauses();
        running.get(0).ticket().close();
        Recorder e = new Recorder("e");
        assertThat(submit("e", 40, e)).isEmpty();
        clock.addAndGet(2 * SECOND);
        controller.pump();
        assertThat(e.admission).isNotNull();   // a's residency lapsed: e runs in its room
        Recorder a = new Recorder("a");
        assertThat(submit("a", 40, a)).isEmpty();
        // Every replica's budget is held by steps running: a waits, but not a nanosecond past the 5 s bound.
        clock.addAndGet(5 * SECOND - 1);
        controller.pump();
        assertThat(a.admission).isNull();
        clock.addAndGet(1);
        controller.pump();
        assertThat(a.admission).isNotNull();
        assertThat(a.admission.waitedNanos()).isEqualTo(5 * SECOND);
        assertThat(controller.totals()).containsEntry("admittedAtWaitBound", 1L).containsEntry("admittedOverBudget", 1L);
        // A newcomer is not bound by it: it waits on (up to the 30 s timeout).
        Recorder f = new Recorder("f");
        assertThat(submit("f", 40, f)).isEmpty();
        clock.addAndGet(6 * SECOND);
        controller.pump();
        assertThat(f.admission).isNull();
        assertThat(f.rejection).isNull();
    }

    @Test
    void aNewcomerThatWaitedTheBoundIsBudgetedForTheRepliesThePoolGivesNotItsMaxTokens() throws Exception {
        controller = controllerWith(settings.withWaitBound(5 * SECOND), AdmissionObserver.NONE);
        List<AdmissionController.Admission> running = fill();
        // The pool's replies are 16 tokens (one block); 82 of each replica's 100 blocks are held by steps running.
        for (int i = 0; i < ReplyLengths.MIN_SEEN; i++) {
            RequestFacts f = step(List.of("a", "b", "c", "d").get(i % 4), 40);
            controller.served(f, running.get(i % 4).placement().replica().id(), 640, 640, 16);
        }
        // e asks for 1,600 tokens (100 blocks): with its 10-block prompt it fits no replica's budget.
        Recorder e = new Recorder("e");
        assertThat(controller.submit(step("e", 10, 1600), Set.of(), e)).isEmpty();
        clock.addAndGet(5 * SECOND - 1);
        controller.pump();
        assertThat(e.admission).isNull();
        // At the bound it is budgeted for a 16-token reply: 11 blocks fit beside the 82.
        clock.addAndGet(1);
        controller.pump();
        assertThat(e.admission).isNotNull();
        assertThat(e.admission.placement().reason()).contains("reply budgeted at 16 tokens", "max_tokens 1600");
        assertThat(controller.totals()).containsEntry("admittedWithSmallerReply", 1L).containsEntry("admittedOverBudget", 0L);
        assertThat(controller.residentLoads().get(e.admission.placement().replica().id()).usedBlocks()).isEqualTo(82 + 11);
    }

    @Test
    @SuppressWarnings("unchecked")
    void whatAQueuedStepWaitedBehindIsSplitByCauseAndTold() throws Exception {
        List<String> told = new ArrayList<>();
        controller = controllerWith(settings, new AdmissionObserver() {
            @Override
            public void admittedAfterWait(long waitedNanos) {
            }

            @Override
            public void rejected(String reason) {
            }

            @Override
            public void waitedBehind(String cause, boolean inProgress, long nanos) {
                told.add(cause + (inProgress ? " in progress " : " newcomer ") + nanos / SECOND);
            }
        });
        List<AdmissionController.Admission> running = fillAfterShortPauses();
        Recorder e = new Recorder("e");
        Recorder f = new Recorder("f");
        assertThat(submit("e", 40, e)).isEmpty();
        assertThat(submit("f", 40, f)).isEmpty();
        // 1 s behind steps running; then all four pause, likely back soon (they always were): 2 s behind paused residents.
        clock.addAndGet(SECOND);
        running.forEach(a -> a.ticket().close());
        clock.addAndGet(2 * SECOND);
        controller.pump();
        assertThat(e.admission).isNotNull();
        assertThat(f.admission).isNotNull();
        Map<String, Object> newcomers = (Map<String, Object>) ((Map<String, Object>) controller.totals().get("waitedBehind")).get("newcomers");
        assertThat(newcomers).containsEntry("steps", 2L);
        Map<String, Object> seconds = (Map<String, Object>) newcomers.get("secondsByCause");
        // e: 1 s behind steps running, then 2 s behind paused residents kept; f behind e (first come, first served) all 3 s.
        assertThat(seconds).containsEntry("runningSteps", 1.0).containsEntry("pausedResidentsNotRevoked", 2.0)
                .containsEntry("newcomersAhead", 3.0).containsEntry("sessionsInProgressAhead", 0.0).containsEntry("warmHomeBackfill", 0.0);
        assertThat(told).containsExactlyInAnyOrder("runningSteps newcomer 1", "pausedResidentsNotRevoked newcomer 2", "newcomersAhead newcomer 3");
        Map<String, Object> tail = (Map<String, Object>) newcomers.get("tail");
        assertThat(tail).containsEntry("p95Seconds", 3.0).containsEntry("maxSeconds", 3.0).containsEntry("stepsAtOrAboveP95", 2);
    }

    /**
     * Issue 36 in admission: when the policy's choice for an adapter's new session has no room within the KV budget,
     * admission's own alternatives put the replicas where the adapter runs or fits first, ahead of a less loaded one
     * whose only adapter slot another adapter holds (vLLM would make the step wait there for a slot).
     */
    @Test
    void anAdaptersSessionMovedForRoomGoesWhereItsAdapterFitsBeforeALessLoadedReplica() throws Exception {
        io.lmwarden.router.placement.lora.AdapterActivity activity = new io.lmwarden.router.placement.lora.AdapterActivity(
                Set.of("alpha", "beta")::contains, Duration.ofMinutes(3).toNanos());
        SessionHomes loraHomes = new SessionHomes(affinity, new io.lmwarden.router.placement.lora.AdapterPlacement(activity,
                Set.of("alpha", "beta")::contains, new io.lmwarden.router.placement.lora.LoraSlots(1), true));
        AffinityPolicy loraPolicy = new AffinityPolicy(loraHomes, SpillThreshold.parse("auto"), 32);
        // r1 is busier than r0, but r0's one adapter slot is beta's; alpha runs on r2.
        List<ReplicaView> pool = List.of(replica("r0"), new ReplicaView("r1", "http://r1", true, 1, 0, 0, 0, 0, 0, null, false),
                replica("r2"));
        activity.seen("r0", "beta", "beta-session", clock.get());
        activity.seen("r2", "alpha", "alpha-earlier", clock.get());
        AdmissionController c = new AdmissionController(settings, new Placer(() -> loraPolicy, indexes), now -> new PoolSnapshot(pool, now),
                () -> loraPolicy, loraHomes, HeldTokens.estimatesOnly(indexes), PREFILL, 1600, new AdmissionObserver() {
                    @Override
                    public void admittedAfterWait(long waitedNanos) {
                    }

                    @Override
                    public void rejected(String reason) {
                    }
                }, clock::get);
        for (String s : List.of("alpha-1", "alpha-2")) {
            assertThat(c.submit(adapterStep(s, "alpha"), Set.of(), new Recorder(s)).orElseThrow().placement().replica().id())
                    .as("%s goes where alpha runs", s).isEqualTo("r2");
        }
        AdmissionController.Admission third = c.submit(adapterStep("alpha-3", "alpha"), Set.of(), new Recorder("alpha-3")).orElseThrow();
        assertThat(third.placement().replica().id()).as("r2 is full; r1 has a free adapter slot, r0 none").isEqualTo("r1");
        assertThat(third.placement().reason()).contains("admission: r2 over its KV budget → r1");
    }

    private static RequestFacts adapterStep(String session, String adapter) {
        RequestFacts f = step(session, 40);
        return new RequestFacts(f.dialect(), adapter, f.stream(), f.sessionKey(), f.shape(), f.maxTokens(), Optional.empty(),
                Optional.empty());
    }
}
