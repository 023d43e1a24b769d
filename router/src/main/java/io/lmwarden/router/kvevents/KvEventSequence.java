package io.lmwarden.router.kvevents;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * vLLM's sequence rules for one publisher's stream into one cache view, without a socket: its stream hands it the
 * messages and connection events its sockets brought, and sends the replay requests it asks for. Each batch carries a
 * sequence number counting from 0 when the publisher starts. In order → applied. A gap → the missed batches are asked
 * for from the first one missing ({@link #replayToAsk()}) while live batches wait in a buffer; when the replay cannot
 * cover the gap (the publisher's buffer moved on), there is no replay socket, the buffer fills up or the replay does
 * not end within {@code replayTimeout} by the clock given, the view is dropped and rebuilt from what follows (a
 * resync). A sequence number lower than expected means the publisher restarted: its engine's cache started empty, so
 * the view is dropped at once. The first batch seen asks for a replay from 0, so a view that starts while the
 * replay buffer still holds the publisher's beginning is complete.
 * <p>
 * Owned by one thread (the subscriber's).
 */
final class KvEventSequence {

    private static final Logger LOG = Logger.getLogger(KvEventSequence.class.getName());

    private final ReplicaCacheView view;
    private final KvEventDecoder decoder;
    private final boolean hasReplay;
    private final int maxBufferedDuringReplay;
    private final long replayTimeoutNanos;
    private final LongSupplier nanoClock;
    private final ArrayDeque<KvEventFrame> heldBack = new ArrayDeque<>();

    private long expected = -1; // the next sequence number; -1 before the first batch
    private boolean replaying;
    private boolean catchingUpFromStart;
    private long replayDeadlineNanos;
    private long replayToAsk = -1; // the start of a replay request not sent yet; -1 when none
    private boolean disconnectedOnce;
    /** The next sequence number before the connection was lost, while the replay after reconnecting runs; else -1. */
    private long expectedBeforeReconnect = -1;

    KvEventSequence(ReplicaCacheView view, KvEventDecoder decoder, boolean hasReplay, KvEventsSettings settings,
                    LongSupplier nanoClock) {
        this.view = view;
        this.decoder = decoder;
        this.hasReplay = hasReplay;
        this.maxBufferedDuringReplay = settings.maxBufferedDuringReplay();
        this.replayTimeoutNanos = settings.replayTimeout().toNanos();
        this.nanoClock = nanoClock;
    }

    // ---- connection events (the live socket's) ----

    void connected() {
        view.connected(true);
    }

    /**
     * The connection finished its greeting. After a disconnection that is, for vLLM, almost always its engine gone and
     * back (a restart: the cache is empty), and an idle restarted engine publishes nothing that would tell. So the
     * view is dropped and rebuilt from the publisher's replay buffer from sequence 0: a restarted publisher's buffer
     * holds its whole new life (the view is complete, and cold if that is all); one that only lost the connection
     * gives back what it still buffers. Without a replay socket the sequence rule tells a restart from a blip once
     * batches flow.
     */
    void handshaken() {
        if (!disconnectedOnce || !hasReplay || expected < 0) {
            return;
        }
        view.countResync();
        view.reset(false, System.currentTimeMillis());
        heldBack.clear();
        expectedBeforeReconnect = expected;
        expected = 0;
        catchingUpFromStart = true;
        askReplay(0);
    }

    void disconnected() {
        disconnectedOnce = true;
        view.connected(false);
    }

    // ---- messages ----

    /** A message from the live socket: [topic, seq, payload]. */
    void live(List<byte[]> message) {
        view.batchArrived();
        KvEventFrame frame = KvEventFrame.live(message);
        if (frame == null) {
            view.apply(KvEventBatch.unreadable(), System.currentTimeMillis());
            return;
        }
        if (replaying) {
            heldBack.add(frame);
            if (heldBack.size() >= maxBufferedDuringReplay) {
                endReplay();
            }
            return;
        }
        if (expected < 0) {
            firstBatch(frame);
        } else if (frame.seq() == expected) {
            apply(frame);
        } else if (frame.seq() < expected) {
            // Sequence numbers only go back when the publisher starts over, and a new engine's cache is empty.
            view.countRestart();
            view.reset(false, System.currentTimeMillis());
            firstBatch(frame);
        } else {
            view.countGap();
            if (hasReplay) {
                startReplay(expected, frame);
            } else {
                resync();
                apply(frame);
            }
        }
    }

    /** A message from the replay socket: ([empty,] seq, payload), the last with seq -1. */
    void replayed(List<byte[]> message) {
        KvEventFrame frame = KvEventFrame.replayed(message);
        if (frame == null || !replaying) {
            return; // a malformed frame, or the tail of a replay already given up
        }
        if (frame.endsReplay()) {
            endReplay();
            return;
        }
        view.batchArrived();
        if (frame.seq() < expected) {
            return;
        }
        if (catchingUpFromStart) {
            catchingUpFromStart = false;
            if (frame.seq() == 0) {
                view.markComplete();
            }
        } else if (frame.seq() > expected) {
            resync(); // the publisher's replay buffer no longer reaches back to the gap
        }
        apply(frame);
    }

    // ---- replay requests and the clock ----

    /** Where the replay to ask for starts, until {@link #replayAsked()}; empty when none is wanted. */
    OptionalLong replayToAsk() {
        return replaying && replayToAsk >= 0 ? OptionalLong.of(replayToAsk) : OptionalLong.empty();
    }

    void replayAsked() {
        replayToAsk = -1;
    }

    /**
     * The replay socket was replaced: a request sent on the old one is answered on no socket, so what is still
     * missing is asked again, with a full {@code replayTimeout} for the new request.
     */
    void replaySocketReplaced() {
        if (replaying) {
            replayToAsk = expected;
            replayDeadlineNanos = nanoClock.getAsLong() + replayTimeoutNanos;
        }
    }

    /** Gives up a replay that has not ended in time. */
    void tick() {
        if (replaying && nanoClock.getAsLong() - replayDeadlineNanos > 0) {
            LOG.warning(() -> "KV-event replay for view " + view.id() + " did not end within "
                    + Duration.ofNanos(replayTimeoutNanos) + "; resynchronising it");
            endReplay();
        }
    }

    // ---- the rules ----

    private void firstBatch(KvEventFrame frame) {
        if (frame.seq() == 0) {
            view.markComplete();
            apply(frame);
        } else if (hasReplay) {
            catchingUpFromStart = true;
            startReplay(0, frame);
        } else {
            apply(frame);
        }
    }

    private void startReplay(long from, KvEventFrame frame) {
        heldBack.clear();
        heldBack.add(frame);
        expected = from;
        askReplay(from);
    }

    private void askReplay(long from) {
        replayToAsk = from;
        replaying = true;
        replayDeadlineNanos = nanoClock.getAsLong() + replayTimeoutNanos;
        view.syncing(true);
        view.countReplay();
    }

    /** Back to live: the batches held back follow what the replay brought, or the view starts over at a gap. */
    private void endReplay() {
        boolean nothingFromStart = catchingUpFromStart; // no frame came: the view simply starts partial
        replaying = false;
        replayToAsk = -1;
        if (expectedBeforeReconnect >= 0) {
            // The publisher's whole buffer came back: a sequence shorter than before is a publisher that started over.
            if (expected < expectedBeforeReconnect) {
                view.countRestart();
                if (nothingFromStart) {
                    view.markComplete(); // a new publisher that has sent nothing: its engine holds nothing
                }
            }
            expectedBeforeReconnect = -1;
        }
        catchingUpFromStart = false;
        view.syncing(false);
        for (KvEventFrame f : heldBack) {
            if (f.seq() < expected) {
                continue;
            }
            if (f.seq() > expected && !nothingFromStart) {
                resync();
            }
            nothingFromStart = false;
            apply(f);
        }
        heldBack.clear();
    }

    private void resync() {
        view.countResync();
        view.reset(false, System.currentTimeMillis());
    }

    private void apply(KvEventFrame frame) {
        view.apply(decoder.decode(frame.payload()), System.currentTimeMillis());
        expected = frame.seq() + 1;
    }
}
