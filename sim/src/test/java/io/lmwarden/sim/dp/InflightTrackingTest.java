package io.lmwarden.sim.dp;

import io.lmwarden.sim.SimProfile;
import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.engine.FinishedRequest;
import io.lmwarden.sim.engine.RequestListener;
import io.lmwarden.sim.engine.SimClock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-flight sets exist for the internal balancer; they must not keep every request a server ever served. */
class InflightTrackingTest {

    private static final RequestListener IGNORED = new RequestListener() {
        @Override
        public void onTokens(int generated, int cachedTokens, boolean first) {
        }

        @Override
        public void onFinished(FinishedRequest result) {
        }
    };

    @Test
    void aOneEngineServerHoldsNoRequestForABalancerItDoesNotHave() {
        SimClock clock = new SimClock(1);
        DataParallelEngines server = new DataParallelEngines(List.of(new Engine(0, SimProfile.defaultProfile(), clock)),
                BalancerEra.CURRENT, 1);
        for (int i = 0; i < 50; i++) {
            server.submit(null, new int[] {1, 2, 3, i}, new int[] {7}, true, null, IGNORED);
        }
        assertThat(server.tracked()).isZero();
    }

    @Test
    void severalEnginesTrackWhatTheBalancerCounts() {
        SimClock clock = new SimClock(1);
        DataParallelEngines server = new DataParallelEngines(List.of(new Engine(0, SimProfile.defaultProfile(), clock),
                new Engine(1, SimProfile.defaultProfile(), clock)), BalancerEra.CURRENT, 1);
        for (int i = 0; i < 4; i++) {
            server.submit(null, new int[] {1, 2, 3, i}, new int[] {7}, true, null, IGNORED);
        }
        // Nothing ran (the engines were not started): all four are in flight and counted.
        assertThat(server.tracked()).isEqualTo(4);
    }
}
