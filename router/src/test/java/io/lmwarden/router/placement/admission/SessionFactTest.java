package io.lmwarden.router.placement.admission;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Two routers' facts of one session merge to the same one whatever the order they are heard in. */
class SessionFactTest {

    private static SessionFact fact(long steps, long endEpochNanos, int pauses, String replica) {
        return new SessionFact("m\u0000s-1", steps, replica, 5_000, endEpochNanos, pauses, 20.5, 0.3, 700_000_000, 1_234, endEpochNanos);
    }

    @Test
    void theFactThatSawMoreStepsWinsThenTheLaterEnd() {
        SessionFact older = fact(4, 2_000, 3, "sim-0");
        SessionFact further = fact(5, 1_000, 4, "sim-1");
        // More steps win even with an earlier end (the peer's clock may be behind).
        assertThat(SessionFact.merge(older, further)).isSameAs(further);
        assertThat(SessionFact.merge(further, older)).isSameAs(further);

        // Two routers ended a step of the session at once from the same history: the later end stands on both.
        SessionFact onA = fact(5, 3_000, 4, "sim-0");
        SessionFact onB = fact(5, 3_500, 4, "sim-1");
        assertThat(SessionFact.merge(onA, onB)).isSameAs(onB);
        assertThat(SessionFact.merge(onB, onA)).isSameAs(onB);
        assertThat(SessionFact.merge(null, onA)).isSameAs(onA);
        assertThat(SessionFact.merge(onA, null)).isSameAs(onA);
    }

    @Test
    void aTieOfStepsAndEndIsBrokenTheSameWayOnEveryMember() {
        SessionFact onA = fact(5, 3_000, 4, "sim-0");
        SessionFact onB = fact(5, 3_000, 4, "sim-1");
        assertThat(SessionFact.merge(onA, onB)).isEqualTo(SessionFact.merge(onB, onA)).isEqualTo(onB);
        // Equal facts: the one held stays (a member skips writing what the cluster knows already).
        SessionFact same = fact(5, 3_000, 4, "sim-0");
        assertThat(SessionFact.merge(onA, same)).isSameAs(onA);
    }

    @Test
    void everyOrderOfHearingTheWritesKeepsTheSameFact() {
        Random random = new Random(7);
        List<SessionFact> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            writes.add(fact(3 + random.nextInt(3), 1_000 * random.nextInt(4), random.nextInt(5), "sim-" + random.nextInt(3)));
        }
        SessionFact expected = writes.stream().reduce(null, SessionFact::merge);
        for (int order = 0; order < 20; order++) {
            Collections.shuffle(writes, random);
            assertThat(writes.stream().reduce(null, SessionFact::merge)).isEqualTo(expected);
        }
        assertThat(expected.steps()).isEqualTo(writes.stream().mapToLong(SessionFact::steps).max().orElseThrow());
    }
}
