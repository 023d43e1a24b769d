package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A session whose steps go round three routers, each adopting the session's fact when a step arrives and writing it
 * when the step ends, has on each the pause history one router that saw every step has: the same last pause, the
 * same estimate; and a router whose pause deadline passes after the session went on elsewhere counts no end.
 */
class SharedSessionHistoryTest {

    private static final long SECOND = 1_000_000_000L;
    private static final String S = "m\u0000s";

    @Test
    void aSessionJudgedByThreeRoutersHasTheHistoryOneRouterWouldHave() {
        ReturnTimes one = new ReturnTimes(10 * SECOND);
        ReturnTimes[] three = {new ReturnTimes(10 * SECOND), new ReturnTimes(10 * SECOND), new ReturnTimes(10 * SECOND)};
        // Each router's clock starts elsewhere; the fact carries wall-clock time.
        EpochClock[] epochs = {new EpochClock(-1_000 * SECOND), new EpochClock(-77 * SECOND), new EpochClock(-5 * SECOND)};
        SessionFact shared = null;
        long now = 0;
        long[] pauses = {2 * SECOND, 3 * SECOND, SECOND / 2, 4 * SECOND, 2 * SECOND, 7 * SECOND, SECOND};
        for (int step = 0; step <= pauses.length; step++) {
            int r = step % 3;
            ReturnTimes here = three[r];
            long local = epochs[r].toLocal(now);
            if (shared != null && shared.aheadOf(here.steps(S))) {
                here.adopt(S, null, shared, epochs[r].toLocal(shared.lastEndEpochNanos()));
            }
            one.arrived(S, now);
            here.arrived(S, local);
            one.stepStarted(S, now);
            here.stepStarted(S, local);
            assertThat(here.lastPauseNanos(S)).as("pause before step %d on router %d", step, r).isEqualTo(one.lastPauseNanos(S));
            assertThat(here.medianPauseNanos(S) / one.medianPauseNanos(S)).as("median before step %d", step)
                    .isCloseTo(1.0, within(step < 3 ? 1.0 : 0.35));
            now += SECOND;
            one.stepEnded(S, now);
            here.stepEnded(S, epochs[r].toLocal(now));
            shared = SessionFact.merge(shared, here.fact(S, epochs[r]));
            if (step < pauses.length) {
                now += pauses[step];
            }
        }
        assertThat(shared.steps()).isEqualTo(pauses.length + 1);
        assertThat(shared.pauses()).isEqualTo(pauses.length);
        // The session's own pauses are the same on the router that saw its last step as on one that saw every step.
        ReturnTimes last = three[pauses.length % 3];
        assertThat(last.estimate(S).mu()).isCloseTo(one.estimate(S).mu(), within(0.6));
    }

    @Test
    void aPauseThatEndedOnAnotherRouterIsNoEndHere() {
        ReturnTimes a = new ReturnTimes(SECOND);
        ReturnTimes b = new ReturnTimes(SECOND);
        for (int i = 0; i < 50; i++) {
            String s = "m\u0000s-" + i;
            a.stepStarted(s, 0);
            a.stepEnded(s, SECOND);
        }
        double before = a.endChance();
        // Every session went on through another router; the deadlines pass here.
        a.settleEnds(10_000 * SECOND, (session, steps) -> true);
        assertThat(a.endChance()).isEqualTo(before);
        // Without the cluster's word, the same pauses are taken for ends.
        b.stepStarted(S, 0);
        b.stepEnded(S, SECOND);
        double alone = b.endChance();
        b.settleEnds(10_000 * SECOND);
        assertThat(b.endChance()).isGreaterThan(alone);
    }
}
