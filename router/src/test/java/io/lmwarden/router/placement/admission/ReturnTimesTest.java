package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The return-time estimate: log-normal pauses per session, shrunk towards the pool's, and the chance that a pause was the last. */
class ReturnTimesTest {

    private static final long SECOND = 1_000_000_000L;

    /** Runs {@code steps} steps of the session, each of 1 s, with pauses of {@code pause} between them; ends paused at the returned time. */
    private static long steps(ReturnTimes t, String session, int steps, long pause, long from) {
        long now = from;
        for (int i = 0; i < steps; i++) {
            t.stepStarted(session, now);
            now += SECOND;
            t.stepEnded(session, now);
            now += pause;
        }
        return now - pause;
    }

    @Test
    void theLogNormalSurvivalIsRightAtItsMedianAndOneSigmaAway() {
        LogNormal d = new LogNormal(Math.log(10), 1.0);
        assertThat(d.survival(10)).isCloseTo(0.5, within(1e-6));
        assertThat(d.survival(10 * Math.E)).isCloseTo(0.158655, within(1e-5));
        assertThat(d.survival(10 / Math.E)).isCloseTo(0.841345, within(1e-5));
        assertThat(d.survival(0)).isEqualTo(1.0);
    }

    @Test
    void aSessionWithoutPausesOfItsOwnFollowsThePriorAndOneWithManyFollowsItself() {
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        t.stepStarted("new", 0);
        assertThat(t.medianPauseNanos("new") / SECOND).isCloseTo(10, within(0.01));
        steps(t, "regular", 30, SECOND, 0);
        assertThat(t.medianPauseNanos("regular") / SECOND).isCloseTo(1.0, within(0.35));
        // A few pauses of its own move a session only part of the way from the pool's estimate.
        ReturnTimes fresh = new ReturnTimes(10 * SECOND);
        steps(fresh, "two", 3, SECOND, 0);
        double median = fresh.medianPauseNanos("two") / SECOND;
        assertThat(median).isGreaterThan(1.5).isLessThan(8);
    }

    @Test
    void aNewSessionIsGuessedFromItsAgentKindNotFromThePoolsMixture() {
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        long now = 0;
        // Interleaved: a bot that loops every 2 s and agents that pause 2 minutes for tools, 20 sessions each.
        for (int i = 0; i < 20; i++) {
            now = kindSteps(t, "bot-" + i, "x-session-id", 6, 2 * SECOND, now);
            now = kindSteps(t, "agent-" + i, "x-claude-code-session-id", 6, 120 * SECOND, now);
        }
        t.stepStarted("new-bot", "x-session-id", now);
        t.stepStarted("new-agent", "x-claude-code-session-id", now);
        t.stepStarted("unknown-kind", now);
        double bot = t.medianPauseNanos("new-bot") / SECOND;
        double agent = t.medianPauseNanos("new-agent") / SECOND;
        double pool = t.medianPauseNanos("unknown-kind") / SECOND;
        assertThat(bot).as("a new bot session").isCloseTo(2, within(0.6));
        assertThat(agent).as("a new agent session").isCloseTo(120, within(30.0));
        // The pool's prior is the mixture: between the two, far from either.
        assertThat(pool).isBetween(4 * bot, agent / 4);
        // Two seconds into a pause, a new bot session is due now; a new agent session is not.
        assertThat(t.returnChance("new-bot", 2 * SECOND, 2 * SECOND)).isGreaterThan(0.3);
        assertThat(t.returnChance("new-agent", 2 * SECOND, 2 * SECOND)).isLessThan(0.05);
    }

    /** Like {@link #steps} for a session of agent kind {@code kind}; returns when its last step ended. */
    private static long kindSteps(ReturnTimes t, String session, String kind, int steps, long pause, long from) {
        long now = from;
        for (int i = 0; i < steps; i++) {
            t.stepStarted(session, kind, now);
            now += SECOND;
            t.stepEnded(session, now);
            now += pause;
        }
        return now - pause;
    }

    @Test
    void theChanceToReturnSoonFallsTheLongerASessionStaysAway() {
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        steps(t, "s", 20, 2 * SECOND, 0);
        long h = 10 * SECOND;
        double justPaused = t.returnChance("s", 0, h);
        double overdue = t.returnChance("s", 30 * SECOND, h);
        assertThat(justPaused).isGreaterThan(0.6);
        assertThat(overdue).isLessThan(0.1);
        // A pause several times the session's usual is most likely its end: the chance keeps falling.
        assertThat(t.returnChance("s", 60 * SECOND, h)).isLessThan(overdue);
    }

    @Test
    void shortPausersAreLikelierToReturnWithinTheHorizonThanLongPausers() {
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        steps(t, "short", 10, 2 * SECOND, 0);
        steps(t, "long", 10, 60 * SECOND, 0);
        long h = 10 * SECOND;
        assertThat(t.returnChance("short", SECOND, h)).isGreaterThan(0.5);
        assertThat(t.returnChance("long", SECOND, h)).isLessThan(0.2);
    }

    @Test
    void theEndChanceIsTheShareOfPausesThatNeverEnd() {
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        for (int s = 0; s < 200; s++) {
            t.settleEnds(s * 100L * SECOND);
            steps(t, "s" + s, 5, SECOND, s * 100L * SECOND);
        }
        t.settleEnds(200 * 100L * SECOND);
        // Five steps: four pauses end in a step, the fifth never does.
        assertThat(t.endChance()).isCloseTo(0.2, within(0.02));
        assertThat(t.knows("s3")).isTrue();
        assertThat(t.knows("never")).isFalse();
    }

    @Test
    void sessionsJoiningAtOnceDoNotMakeEveryPauseLookLikeAnEnd() {
        // 32 sessions of six steps start together, 2 s pauses: two steps in, none has ended. Counting starts against
        // steps said nearly every pause was a last one here, and residents in a 2 s pause were revoked as gone.
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        long now = 0;
        for (int s = 0; s < 32; s++) {
            t.stepStarted("s" + s, now);
        }
        for (int step = 0; step < 2; step++) {
            now += 10 * SECOND;
            for (int s = 0; s < 32; s++) {
                t.stepEnded("s" + s, now);
            }
            now += 2 * SECOND;
            t.settleEnds(now);
            for (int s = 0; s < 32; s++) {
                t.stepStarted("s" + s, now);
            }
        }
        assertThat(t.endChance()).isLessThan(0.15);
        now += 10 * SECOND;
        for (int s = 0; s < 32; s++) {
            t.stepEnded("s" + s, now);
        }
        assertThat(t.returnChance("s0", SECOND, 10 * SECOND)).isGreaterThan(0.8);
    }

    @Test
    void aStepThatWaitsForAdmissionEndsItsPauseWhenItArrivesNotWhenItIsAdmitted() {
        ReturnTimes t = new ReturnTimes(10 * SECOND);
        long end = steps(t, "s", 20, SECOND, 0);
        // Each next step arrives 1 s after the last ended, then waits 60 s in the router's queue.
        for (int i = 0; i < 20; i++) {
            t.arrived("s", end + SECOND);
            t.stepStarted("s", end + 61 * SECOND);
            end += 62 * SECOND;
            t.stepEnded("s", end);
        }
        assertThat(t.medianPauseNanos("s") / SECOND).isCloseTo(1.0, within(0.2));
        assertThat(t.lastPauseNanos("s")).isEqualTo(SECOND);
    }

    @Test
    void aPauseTakenForAnEndThatComesBackCountsAsAReturn() {
        ReturnTimes t = new ReturnTimes(SECOND);
        long end = steps(t, "s", 10, SECOND, 0);
        t.settleEnds(end + 1000 * SECOND);
        double afterEnd = t.endChance();
        t.stepStarted("s", end + 1001 * SECOND);
        assertThat(t.endChance()).isLessThan(afterEnd);
        assertThat(t.endChance()).isLessThan(0.1);
    }
}
