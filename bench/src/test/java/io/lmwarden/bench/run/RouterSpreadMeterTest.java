package io.lmwarden.bench.run;

import io.lmwarden.bench.report.RouterSpread;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RouterSpreadMeterTest {

    private static StepRecord step(int session, int step, String replica, String decision, Boolean stayed, int router) {
        return new StepRecord(session, step, 0, 1, 2, replica, decision, 10, 1000, 500, 800, stayed, false, null, 0, 0, false, router, "", 1);
    }

    @Test
    void theRoundRobinSendsConsecutiveStepsOfASessionToDifferentRouters() {
        for (int session = 0; session < 5; session++) {
            for (int step = 1; step < 6; step++) {
                assertThat(SessionDriver.routerFor(session, step + 1, 3)).isNotEqualTo(SessionDriver.routerFor(session, step, 3));
            }
        }
        List<Integer> firstSteps = new ArrayList<>();
        for (int session = 0; session < 3; session++) {
            firstSteps.add(SessionDriver.routerFor(session, 1, 3));
        }
        assertThat(firstSteps).containsExactly(0, 1, 2);
        assertThat(SessionDriver.routerFor(7, 3, 1)).isZero();
    }

    @Test
    void aSessionThatKeepsOneRouterForSeveralStepsMovesToTheNextAfterThem() {
        for (int session = 0; session < 5; session++) {
            List<Integer> routers = new ArrayList<>();
            for (int step = 1; step <= 9; step++) {
                routers.add(SessionDriver.routerFor(session, step, 3, 4));
            }
            int first = session % 3;
            assertThat(routers).as("session %d", session).containsExactly(first, first, first, first, (first + 1) % 3,
                    (first + 1) % 3, (first + 1) % 3, (first + 1) % 3, (first + 2) % 3);
        }
        // one step per router is the round robin of every step
        for (int step = 1; step < 7; step++) {
            assertThat(SessionDriver.routerFor(4, step, 3, 1)).isEqualTo(SessionDriver.routerFor(4, step, 3));
        }
        // the request target applies it, and still skips a router out of rotation
        RequestTarget target = new RequestTarget(List.of("http://a", "http://b", "http://c"), "m", 0, i -> i != 1, 2);
        assertThat(List.of(target.routerFor(0, 1), target.routerFor(0, 2), target.routerFor(0, 3), target.routerFor(0, 4),
                target.routerFor(0, 5))).containsExactly(0, 0, 2, 2, 2);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RequestTarget(List.of("http://a"), "m", 0, i -> true, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusedConnectionsAreCountedAndSummedOverRepeats() {
        List<StepRecord> steps = List.of(step(0, 1, "r0", "NEW", null, 0),
                new StepRecord(0, 2, 0, 0, 2, null, null, 0, 1000, -1, 0, null, false,
                        "request failed: Connection refused: /127.0.0.1:40123", 0, 0, false, 0, "", 1),
                new StepRecord(1, 2, 0, 0, 2, null, null, 0, 1000, -1, 0, null, false, "HTTP 503: down", 0, 0, false, 0, "", 1));
        RouterSpread s = RouterSpreadMeter.measure(steps, 1);
        assertThat(s.refusedConnections()).isEqualTo(1);
        assertThat(RouterSpread.sum(List.of(s, s)).refusedConnections()).isEqualTo(2);
    }

    @Test
    void countsStepsPerRouterSessionsOnSeveralReplicasAndMovesNoRouterAnnounced() {
        RouterSpread s = RouterSpreadMeter.measure(List.of(
                // session 0 stays home
                step(0, 1, "r0", "NEW", null, 0), step(0, 2, "r0", "STICKY", true, 1), step(0, 3, "r0", "STICKY", true, 2),
                // session 1 is moved by a spill (announced), then a router sends it back as STICKY to its old home (not announced)
                step(1, 1, "r1", "NEW", null, 1), step(1, 2, "r0", "SPILL", false, 2), step(1, 3, "r1", "STICKY", false, 0),
                // session 2 has one step in the stage and a failed one
                step(2, 1, "r1", "NEW", null, 2),
                new StepRecord(2, 2, 0, 0, 2, null, null, 0, 1000, -1, 0, null, false, "HTTP 503", 0, 0, false, 0, "", 1)), 3);
        assertThat(s.stepsPerRouter()).containsExactly(3, 2, 3);
        assertThat(s.sessions()).isEqualTo(2);
        assertThat(s.onSeveralReplicas()).isEqualTo(1);
        assertThat(s.unannouncedMoves()).isEqualTo(1);
        assertThat(RouterSpread.sum(List.of(s, s)).stepsPerRouter()).containsExactly(6, 4, 6);
        assertThat(s.movesByDecision()).containsOnly(java.util.Map.entry("SPILL", 1), java.util.Map.entry("STICKY", 1));
    }

    @Test
    void movesAreCountedByDecisionAndSummedOverRepeats() {
        RouterSpread s = RouterSpreadMeter.measure(List.of(
                step(0, 1, "r0", "NEW", null, 0), step(0, 2, "r1", "DRAIN", false, 0), step(0, 3, "r1", "STICKY", true, 0),
                step(1, 1, "r0", "NEW", null, 0), step(1, 2, "r2", "DRAIN", false, 0),
                step(2, 1, "r2", "NEW", null, 0), step(2, 2, "r2", "STICKY", true, 0)), 1);
        assertThat(s.movesByDecision()).containsOnly(java.util.Map.entry("DRAIN", 2));
        assertThat(s.unannouncedMoves()).isZero();
        assertThat(s.describeMoves()).isEqualTo("DRAIN 2");
        assertThat(RouterSpread.sum(List.of(s, s)).movesByDecision()).containsOnly(java.util.Map.entry("DRAIN", 4));
    }
}
