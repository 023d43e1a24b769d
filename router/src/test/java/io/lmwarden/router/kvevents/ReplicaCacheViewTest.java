package io.lmwarden.router.kvevents;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** How far a view can be trusted as its clock moves: the test moves it, so each boundary is exact. */
class ReplicaCacheViewTest {

    private static final long STALE_AFTER = Duration.ofMillis(300).toNanos();

    private long nanos = 5_000_000_000L;
    private final ReplicaCacheView view = new ReplicaCacheView("r", Duration.ofNanos(STALE_AFTER), 1024, () -> nanos);

    @Test
    void aViewNeverConnectedIsConnectingForStaleAfterThenStale() {
        nanos += STALE_AFTER;
        assertThat(view.state()).isEqualTo(ViewState.CONNECTING);
        nanos += 1;
        assertThat(view.state()).isEqualTo(ViewState.STALE);
        view.connected(true);
        assertThat(view.state()).isEqualTo(ViewState.LIVE);
    }

    @Test
    void anIdleEnginesSilenceIsNotStaleness() {
        view.connected(true);
        view.batchArrived();
        nanos += STALE_AFTER * 1_000;
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        assertThat(view.status().usable()).isTrue();
    }

    @Test
    void aViewGoesStaleWhenSilentUnderTrafficAndLiveAgainOnceItSpeaks() {
        view.connected(true);
        view.batchArrived();
        nanos += 1;
        view.noteTraffic();
        nanos += STALE_AFTER / 2;
        view.noteTraffic(); // later requests do not move the start of the silence
        nanos += STALE_AFTER / 2;
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        nanos += 1;
        assertThat(view.status().state()).isEqualTo(ViewState.STALE);
        assertThat(view.status().usable()).isFalse();
        assertThat(view.unansweredTrafficNanos(nanos)).isEqualTo(STALE_AFTER + 1);

        view.batchArrived();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        assertThat(view.unansweredTrafficNanos(nanos)).isZero();
        nanos += 1;
        view.noteTraffic();
        nanos += STALE_AFTER;
        assertThat(view.status().state()).as("silence counts from the first request after the batch")
                .isEqualTo(ViewState.LIVE);
        nanos += 1;
        assertThat(view.status().state()).isEqualTo(ViewState.STALE);
    }

    @Test
    void trafficAnsweredByABatchKeepsTheViewLive() {
        view.connected(true);
        view.noteTraffic();
        nanos += STALE_AFTER / 2;
        view.batchArrived();
        nanos += STALE_AFTER * 10;
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
    }

    @Test
    void aDisconnectedViewIsConnectingForStaleAfterThenStale() {
        view.connected(true);
        nanos += STALE_AFTER * 10;
        view.connected(false);
        nanos += STALE_AFTER;
        assertThat(view.status().state()).isEqualTo(ViewState.CONNECTING);
        nanos += 1;
        assertThat(view.status().state()).isEqualTo(ViewState.STALE);
        view.connected(true);
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
    }

    @Test
    void aSyncingViewIsNotUsable() {
        view.connected(true);
        view.syncing(true);
        assertThat(view.status().state()).isEqualTo(ViewState.SYNCING);
        assertThat(view.status().usable()).isFalse();
        view.syncing(false);
        assertThat(view.status().usable()).isTrue();
    }
}
