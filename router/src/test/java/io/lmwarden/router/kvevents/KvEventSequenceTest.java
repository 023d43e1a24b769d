package io.lmwarden.router.kvevents;

import io.lmwarden.router.kvevents.VllmWire.Encoding;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static io.lmwarden.router.kvevents.VllmWire.batch;
import static io.lmwarden.router.kvevents.VllmWire.removed;
import static io.lmwarden.router.kvevents.VllmWire.stored;
import static io.lmwarden.router.kvevents.VllmWire.tokens;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * vLLM's sequence rules with scripted frames and a clock the test moves: no socket, no sleep, so every counter is
 * exact. Block k of {@link #PROMPT} is stored by the batch {@link #block} makes, with block k-1 as its parent, so the
 * length of the prefix the view holds says which batches were applied, and an orphan store says one came out of order.
 */
class KvEventSequenceTest {

    private static final int B = 16;
    private static final int[] PROMPT = tokens(0, 20 * B);
    private static final byte[] TOPIC = "kv-events".getBytes(StandardCharsets.UTF_8);
    private static final Duration REPLAY_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration STALE_AFTER = Duration.ofSeconds(10);

    private long nanos = 1_000_000_000L;
    private final ReplicaCacheView view = new ReplicaCacheView("r", STALE_AFTER, 1024, () -> nanos);

    private KvEventSequence sequence(boolean hasReplay, int maxBufferedDuringReplay) {
        KvEventsSettings settings = new KvEventsSettings(STALE_AFTER, REPLAY_TIMEOUT, Duration.ofSeconds(2),
                maxBufferedDuringReplay, 1024, Duration.ofMillis(50));
        KvEventSequence s = new KvEventSequence(view, new KvEventDecoder(), hasReplay, settings, () -> nanos);
        s.connected();
        s.handshaken();
        return s;
    }

    private KvEventSequence withReplay() {
        return sequence(true, 10_000);
    }

    private KvEventSequence withoutReplay() {
        return sequence(false, 10_000);
    }

    /** The batch that stores block k of the prompt (its parent is block k-1). */
    private static byte[] block(int k) {
        return batch(Encoding.MAP, k, 0, stored(new long[]{k + 1}, k == 0 ? null : (long) k,
                Arrays.copyOfRange(PROMPT, k * B, (k + 1) * B), B, "GPU"));
    }

    private static byte[] empty() {
        return batch(Encoding.MAP, 0, 0);
    }

    private static byte[] seq(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }

    private static void live(KvEventSequence s, long n, byte[] payload) {
        s.live(List.of(TOPIC, seq(n), payload));
    }

    private static void replayed(KvEventSequence s, long n, byte[] payload) {
        s.replayed(List.of(new byte[0], seq(n), payload));
    }

    private static void endOfReplay(KvEventSequence s) {
        replayed(s, -1, new byte[0]);
    }

    /** Live batches from..to-1, each storing its own block. */
    private static void liveBlocks(KvEventSequence s, int from, int to) {
        for (int k = from; k < to; k++) {
            live(s, k, block(k));
        }
    }

    /** The connection lost and made again; the replay from 0 that the reconnection asks for has gone out. */
    private static void reconnectedAndReplayAsked(KvEventSequence s) {
        s.disconnected();
        s.connected();
        s.handshaken();
        s.replayAsked();
    }

    private int heldBlocks() {
        return view.lookup(PROMPT, null, null).gpuBlocks();
    }

    private void counters(long gaps, long replays, long resyncs, long restarts) {
        ViewStatus s = view.status();
        assertThat(new long[]{s.gaps(), s.replays(), s.resyncs(), s.publisherRestarts()})
                .as("gaps, replays, resyncs, restarts").containsExactly(gaps, replays, resyncs, restarts);
    }

    @Test
    void batchesInOrderAreAppliedAndAFirstBatchAtZeroMakesTheViewComplete() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 3);
        assertThat(heldBlocks()).isEqualTo(3);
        assertThat(view.status().complete()).isTrue();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        assertThat(view.status().batches()).isEqualTo(3);
        assertThat(s.replayToAsk()).isEmpty();
        counters(0, 0, 0, 0);
    }

    @Test
    void aClearInABatchLeavesNothingBehindAndMakesTheViewCold() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 3);
        live(s, 3, batch(Encoding.ARRAY, 3, 0, removed("GPU", 3)));
        assertThat(heldBlocks()).isEqualTo(2);
        live(s, 4, batch(Encoding.ARRAY, 4, 0, new VllmWire.Cleared()));
        assertThat(heldBlocks()).isZero();
        assertThat(view.status().index().clears()).isEqualTo(1);
        assertThat(view.coldEvents()).isEqualTo(1);
        assertThat(view.status().complete()).isTrue();
        counters(0, 0, 0, 0);
    }

    @Test
    void aGapAsksForAReplayFromTheFirstMissingBatchAndHoldsLiveBatchesBackUntilItEnds() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 2);
        live(s, 3, block(3)); // 2 was lost
        assertThat(s.replayToAsk()).hasValue(2);
        assertThat(view.status().state()).isEqualTo(ViewState.SYNCING);
        live(s, 4, block(4));
        assertThat(heldBlocks()).as("live batches wait for the replay").isEqualTo(2);

        s.replayAsked();
        assertThat(s.replayToAsk()).as("asked once").isEmpty();
        replayed(s, 2, block(2));
        replayed(s, 3, block(3));
        endOfReplay(s);

        assertThat(heldBlocks()).isEqualTo(5);
        assertThat(view.status().index().orphanStores()).as("applied in order").isZero();
        assertThat(view.status().complete()).isTrue();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        counters(1, 1, 0, 0);
        live(s, 5, block(5));
        assertThat(heldBlocks()).isEqualTo(6);
    }

    @Test
    void aReplayRequestThatCannotGoYetIsAskedForUntilItIsSent() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 1);
        live(s, 2, block(2));
        assertThat(s.replayToAsk()).hasValue(1);
        assertThat(s.replayToAsk()).as("still owed: the socket could not take it").hasValue(1);
        s.replayAsked();
        assertThat(s.replayToAsk()).isEmpty();
    }

    @Test
    void aReplacedReplaySocketIsAskedAgainForWhatIsStillMissing() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 2);
        live(s, 5, block(5));
        s.replayAsked();
        replayed(s, 2, block(2));
        s.replaySocketReplaced();
        assertThat(s.replayToAsk()).hasValue(3);
        nanos += REPLAY_TIMEOUT.toNanos() - 1;
        s.tick();
        assertThat(view.status().state()).as("the new request has a timeout of its own").isEqualTo(ViewState.SYNCING);
        s.replayAsked();
        replayed(s, 3, block(3));
        replayed(s, 4, block(4));
        endOfReplay(s);
        assertThat(heldBlocks()).isEqualTo(6);
        counters(1, 1, 0, 0);
    }

    @Test
    void aReplayThatNoLongerReachesBackToTheGapDropsTheViewAndRebuildsIt() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 2);
        live(s, 5, block(5));
        s.replayAsked();
        // The publisher's buffer moved past 2 and 3.
        replayed(s, 4, block(4));
        replayed(s, 5, block(5));
        endOfReplay(s);
        assertThat(heldBlocks()).as("what was held is dropped with the view").isZero();
        assertThat(view.holds(BlockKeys.chain(BlockKeys.root(), PROMPT, B)[4], Medium.GPU)).isFalse();
        assertThat(view.status().complete()).isFalse();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        counters(1, 1, 1, 0);
    }

    @Test
    void aHeldBackBatchBeyondWhatTheReplayBroughtResyncs() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 2);
        live(s, 3, block(3));
        live(s, 6, block(6)); // 4 and 5 lost too, and not in the replay
        s.replayAsked();
        replayed(s, 2, block(2));
        replayed(s, 3, block(3));
        endOfReplay(s);
        assertThat(heldBlocks()).as("the view starts over at the gap").isZero();
        assertThat(view.status().complete()).isFalse();
        counters(1, 1, 1, 0);
    }

    @Test
    void aReplayThatDoesNotEndInTimeResyncsAndTheHeldBackBatchesApply() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 2);
        live(s, 3, block(3));
        s.replayAsked();
        nanos += REPLAY_TIMEOUT.toNanos();
        s.tick();
        assertThat(view.status().state()).as("not yet: the deadline itself").isEqualTo(ViewState.SYNCING);
        nanos += 1;
        s.tick();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        assertThat(heldBlocks()).isZero();
        assertThat(view.status().batches()).isEqualTo(3);
        counters(1, 1, 1, 0);

        replayed(s, 2, block(2));
        endOfReplay(s);
        assertThat(view.status().batches()).as("the tail of a replay given up is ignored").isEqualTo(3);
        live(s, 4, block(4));
        assertThat(view.status().batches()).isEqualTo(4);
        counters(1, 1, 1, 0);
    }

    @Test
    void tooManyBatchesHeldBackEndTheReplay() {
        KvEventSequence s = sequence(true, 3);
        liveBlocks(s, 0, 2);
        live(s, 4, block(4));
        live(s, 5, block(5));
        assertThat(view.status().state()).isEqualTo(ViewState.SYNCING);
        live(s, 6, block(6));
        assertThat(view.status().state()).as("the third held back batch ends it").isEqualTo(ViewState.LIVE);
        assertThat(s.replayToAsk()).isEmpty();
        assertThat(view.status().batches()).isEqualTo(5);
        counters(1, 1, 1, 0);
        replayed(s, 2, block(2));
        assertThat(view.status().batches()).isEqualTo(5);
    }

    @Test
    void withoutAReplaySocketAGapResyncs() {
        KvEventSequence s = withoutReplay();
        liveBlocks(s, 0, 2);
        live(s, 3, block(3));
        assertThat(s.replayToAsk()).isEmpty();
        assertThat(heldBlocks()).isZero();
        assertThat(view.status().batches()).isEqualTo(3);
        assertThat(view.status().complete()).isFalse();
        counters(1, 0, 1, 0);
    }

    @Test
    void aLateJoinerAsksForTheReplayFromZeroAndIsCompleteOnceItCameBack() {
        KvEventSequence s = withReplay();
        live(s, 3, block(3));
        assertThat(s.replayToAsk()).hasValue(0);
        assertThat(view.status().complete()).isFalse();
        s.replayAsked();
        live(s, 4, block(4));
        for (int k = 0; k < 4; k++) {
            replayed(s, k, block(k));
        }
        endOfReplay(s);
        assertThat(heldBlocks()).isEqualTo(5);
        assertThat(view.status().complete()).isTrue();
        assertThat(view.status().index().orphanStores()).isZero();
        counters(0, 1, 0, 0);
    }

    @Test
    void aLateJoinerWhoseReplayNoLongerHoldsTheBeginningStaysPartial() {
        KvEventSequence s = withReplay();
        live(s, 5, block(5));
        s.replayAsked();
        replayed(s, 3, block(3));
        replayed(s, 4, block(4));
        endOfReplay(s);
        assertThat(view.status().complete()).isFalse();
        assertThat(view.status().batches()).isEqualTo(3);
        counters(0, 1, 0, 0);
    }

    @Test
    void aLateJoinerWhoseReplayBringsNothingStartsPartialWithoutAResync() {
        KvEventSequence s = withReplay();
        live(s, 5, block(5));
        live(s, 6, block(6));
        s.replayAsked();
        endOfReplay(s);
        assertThat(view.status().complete()).isFalse();
        assertThat(view.status().batches()).isEqualTo(2);
        counters(0, 1, 0, 0);
    }

    @Test
    void withoutAReplaySocketALateJoinerStartsPartial() {
        KvEventSequence s = withoutReplay();
        live(s, 3, block(3));
        live(s, 4, block(4));
        assertThat(view.status().complete()).isFalse();
        assertThat(view.status().batches()).isEqualTo(2);
        counters(0, 0, 0, 0);
    }

    @Test
    void aLowerSequenceNumberIsARestartedPublisherAndMakesTheViewCold() {
        KvEventSequence s = withoutReplay();
        liveBlocks(s, 0, 3);
        live(s, 3, empty());
        live(s, 1, empty()); // started over; its 0 was missed
        assertThat(heldBlocks()).as("a restarted engine holds nothing of what it held").isZero();
        assertThat(view.coldEvents()).isEqualTo(1);
        assertThat(view.status().complete()).isFalse();
        counters(0, 0, 0, 1);
        live(s, 2, batch(Encoding.MAP, 2, 0, stored(new long[]{1}, null, Arrays.copyOf(PROMPT, B), B, "GPU")));
        assertThat(heldBlocks()).as("the new engine's block").isEqualTo(1);
    }

    @Test
    void aRestartedPublisherWhoseFirstBatchArrivesIsCompleteAgain() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 3);
        live(s, 0, block(0));
        assertThat(heldBlocks()).isEqualTo(1);
        assertThat(view.status().complete()).isTrue();
        counters(0, 0, 0, 1);
    }

    @Test
    void aReconnectionDropsTheViewAndReplaysFromZero() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 3);
        s.disconnected();
        assertThat(view.status().state()).isEqualTo(ViewState.CONNECTING);
        s.connected();
        assertThat(s.replayToAsk()).as("not before the greeting").isEmpty();
        s.handshaken();
        assertThat(s.replayToAsk()).hasValue(0);
        assertThat(heldBlocks()).isZero();
        assertThat(view.status().state()).isEqualTo(ViewState.SYNCING);
        s.replayAsked();
        // The same publisher, still buffering its whole life: only the connection was lost.
        for (int k = 0; k < 4; k++) {
            replayed(s, k, block(k));
        }
        endOfReplay(s);
        live(s, 4, block(4));
        assertThat(heldBlocks()).isEqualTo(5);
        assertThat(view.status().complete()).isTrue();
        counters(0, 1, 1, 0);
    }

    @Test
    void aReconnectionToAPublisherWithAShorterSequenceIsARestart() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 5);
        reconnectedAndReplayAsked(s);
        replayed(s, 0, block(0));
        endOfReplay(s);
        assertThat(heldBlocks()).isEqualTo(1);
        assertThat(view.coldEvents()).isEqualTo(1);
        assertThat(view.status().complete()).isTrue();
        counters(0, 1, 1, 1);
    }

    @Test
    void aReconnectionToAPublisherThatHasSentNothingIsAColdCompleteView() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 5);
        reconnectedAndReplayAsked(s);
        endOfReplay(s);
        assertThat(heldBlocks()).isZero();
        assertThat(view.coldEvents()).isEqualTo(1);
        assertThat(view.status().complete()).isTrue();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        counters(0, 1, 1, 1);
        live(s, 0, block(0));
        assertThat(heldBlocks()).isEqualTo(1);
    }

    @Test
    void withoutAReplaySocketAReconnectionKeepsTheViewUntilTheSequenceTells() {
        KvEventSequence s = withoutReplay();
        liveBlocks(s, 0, 3);
        s.disconnected();
        s.connected();
        s.handshaken();
        assertThat(heldBlocks()).isEqualTo(3);
        assertThat(s.replayToAsk()).isEmpty();
        live(s, 3, block(3));
        assertThat(heldBlocks()).isEqualTo(4);
        counters(0, 0, 0, 0);
    }

    @Test
    void theFirstConnectionIsNotAReconnection() {
        KvEventSequence s = withReplay(); // connected and greeted once
        liveBlocks(s, 0, 2);
        s.connected();
        s.handshaken();
        assertThat(s.replayToAsk()).isEmpty();
        assertThat(heldBlocks()).isEqualTo(2);
        counters(0, 0, 0, 0);
    }

    @Test
    void aDisconnectedViewIsConnectingThenStale() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 1);
        s.disconnected();
        nanos += STALE_AFTER.toNanos();
        assertThat(view.status().state()).isEqualTo(ViewState.CONNECTING);
        nanos += 1;
        assertThat(view.status().state()).isEqualTo(ViewState.STALE);
        s.connected();
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
    }

    @Test
    void malformedFramesAreCountedAndIgnored() {
        KvEventSequence s = withReplay();
        liveBlocks(s, 0, 1);
        s.live(List.of(TOPIC, seq(1))); // no payload
        s.live(List.of(TOPIC, new byte[4], block(1))); // a short sequence number
        assertThat(view.status().batches()).isEqualTo(3);
        assertThat(view.status().unreadableBatches()).isEqualTo(2);
        live(s, 1, block(1));
        assertThat(heldBlocks()).as("the malformed messages took no sequence number").isEqualTo(2);
        live(s, 2, new byte[]{(byte) 0xc1, 2, 3}); // not msgpack: its sequence number is taken, its content not
        assertThat(view.status().unreadableBatches()).isEqualTo(3);
        counters(0, 0, 0, 0);

        live(s, 5, empty());
        s.replayAsked();
        s.replayed(List.of(new byte[0], seq(3))); // no payload
        s.replayed(List.of(new byte[0], new byte[3], empty())); // a short sequence number
        assertThat(view.status().state()).as("still waiting for the replay").isEqualTo(ViewState.SYNCING);
        s.replayed(List.of(seq(3), empty())); // without the delimiter is fine
        s.replayed(List.of(seq(4), empty()));
        endOfReplay(s);
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        assertThat(view.status().batches()).isEqualTo(8);
        assertThat(view.status().unreadableBatches()).isEqualTo(3);
        counters(1, 1, 0, 0);
    }
}
