package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The victim choice under pressure, and the hysteresis marks. */
class VictimsTest {

    private static final long SECOND = 1_000_000_000L;

    private final ReturnTimes returns = new ReturnTimes(10 * SECOND);
    private final AttainedService service = new AttainedService(60 * SECOND);
    private final Victims victims = new Victims(returns, service);

    /** Steps with the given pauses; the session's last step ends at {@code end}. */
    private void history(String session, long pause, long end) {
        long now = end - 10 * (pause + SECOND);
        for (int i = 0; i < 10; i++) {
            now += pause;
            returns.stepStarted(session, now);
            now += SECOND;
            returns.stepEnded(session, now);
        }
    }

    @Test
    void theSessionAboutToReturnIsNeverAVictimTheOneLikelyGoneIsTheFirst() {
        long now = 1000 * SECOND;
        long breakEven = 5 * SECOND;
        history("quick", SECOND, now);                 // comes back within a second, paused just now
        history("slow", 60 * SECOND, now);             // pauses a minute, paused just now
        history("gone", SECOND, now - 40 * SECOND);    // came back within a second, away for 40 s now: it has ended
        List<String> order = victims.order(List.of(new Victims.Paused("quick", now), new Victims.Paused("slow", now),
                new Victims.Paused("gone", now - 40 * SECOND)), now, breakEven, Victims.Eligible.COSTLY);
        assertThat(order).containsExactly("gone", "slow");
    }

    @Test
    void amongEquallyUnlikelyReturnsTheRelativelyIdlerGoesFirstThenTheMostServed() {
        long now = 1000 * SECOND;
        history("a", 60 * SECOND, now - 30 * SECOND);   // half its usual pause
        history("b", 60 * SECOND, now - 90 * SECOND);   // one and a half
        history("c", 60 * SECOND, now - 30 * SECOND);
        service.add("c", 10_000, now);
        List<String> order = victims.order(List.of(new Victims.Paused("a", now - 30 * SECOND), new Victims.Paused("b", now - 90 * SECOND),
                new Victims.Paused("c", now - 30 * SECOND)), now, SECOND, Victims.Eligible.COSTLY);
        assertThat(order).containsExactly("b", "c", "a");
    }

    @Test
    void aReplicaWithNothingToRunTakesMoreResidentsButNeverOneAboutToReturn() {
        long now = 1000 * SECOND;
        history("quick", 2 * SECOND, now - 3 * SECOND / 2);   // paused 1.5 s of its usual 2 s: about to return
        history("justNow", 2 * SECOND, now);
        history("late", 2 * SECOND, now - 8 * SECOND);        // four times its usual pause
        history("slow", 8 * SECOND, now - 12 * SECOND);
        List<Victims.Paused> paused = List.of(new Victims.Paused("quick", now - 3 * SECOND / 2), new Victims.Paused("justNow", now),
                new Victims.Paused("late", now - 8 * SECOND), new Victims.Paused("slow", now - 12 * SECOND));
        List<String> underPressure = victims.order(paused, now, 20 * SECOND, Victims.Eligible.COSTLY);
        List<String> workConserving = victims.order(paused, now, 20 * SECOND, Victims.Eligible.WORK_CONSERVING);
        assertThat(workConserving).containsAll(underPressure).doesNotContain("quick", "justNow").contains("late");
    }

    @Test
    void pressureActsAboveNinetyFivePercentAndReleasesDownToEighty() {
        Pressure p = Pressure.DEFAULT;
        assertThat(p.acts(950, 1000)).isFalse();
        assertThat(p.acts(951, 1000)).isTrue();
        assertThat(p.released(801, 1000)).isFalse();
        assertThat(p.released(800, 1000)).isTrue();
    }
}
