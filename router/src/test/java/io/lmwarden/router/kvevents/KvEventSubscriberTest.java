package io.lmwarden.router.kvevents;

import io.lmwarden.router.kvevents.VllmWire.Encoding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.ZMQException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static io.lmwarden.router.kvevents.VllmWire.batch;
import static io.lmwarden.router.kvevents.VllmWire.removed;
import static io.lmwarden.router.kvevents.VllmWire.stored;
import static io.lmwarden.router.kvevents.VllmWire.tokens;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The subscriber against real ZeroMQ sockets on 127.0.0.1: a PUB and a replay ROUTER that behave as vLLM's
 * publisher ({@link TestPublisher}, bound at port 0), batches encoded as vLLM encodes them ({@link VllmWire}). The
 * sequence rules themselves are {@link KvEventSequenceTest}'s; here is what only sockets show. Asserts are on what a
 * user sees (blocks indexed, the view complete or live), and on counters only where no timing can move them: a slow
 * handshake on a loaded machine may legitimately cost a resync. Waits are for a condition, polled, with a deadline
 * that only turns a hang into a failure.
 */
class KvEventSubscriberTest {

    private static final int B = 16;
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String TOPIC = "kv-events";
    /** Replays here are answered at once; the long timeout keeps a loaded machine from turning one into a resync. */
    private static final KvEventsSettings SETTINGS = KvEventsSettings.defaults().withReplayTimeout(PATIENCE);
    /** Heartbeats of 200 ms: a stalled greeting is replaced after 400 ms. */
    private static final KvEventsSettings QUICK_HEARTBEAT = new KvEventsSettings(Duration.ofSeconds(10), PATIENCE,
            Duration.ofMillis(200), 10_000, 1024, Duration.ofMillis(20));

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T c) {
        closeables.add(c);
        return c;
    }

    private KvEventSubscriber subscriber(KvEventsSettings settings) {
        return closing(KvEventSubscriber.start(settings));
    }

    private static KvEventEndpoint endpoint(String id, TestPublisher pub) {
        return new KvEventEndpoint(id, "127.0.0.1", pub.eventsPort(), pub.replayPort(), TOPIC);
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            pause(5);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Publishes empty batches until the view has taken one and is not catching up: a SUB socket that has just
     * connected misses what was sent before its subscription reached the publisher (ZeroMQ's slow joiner).
     */
    private static void warmUp(TestPublisher pub, ReplicaCacheView view, Encoding enc) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (view.status().batches() == 0 || view.status().state() == ViewState.SYNCING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the view never received a batch");
            }
            pub.publish(batch(enc, 0, 0));
            pause(20);
        }
    }

    private static int[] slice(int[] t, int fromBlock, int toBlock) {
        return java.util.Arrays.copyOfRange(t, fromBlock * B, toBlock * B);
    }

    private static int gpuBlocks(ReplicaCacheView view, int[] prompt) {
        return view.lookup(prompt, null, null).gpuBlocks();
    }

    @ParameterizedTest
    @EnumSource(Encoding.class)
    void aRealPublishersEventsFillTheIndexAndAClearMakesItColdWithinOneEvent(Encoding enc) {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10_000, true));
        KvEventSubscriber sub = subscriber(SETTINGS);
        ReplicaCacheView view = sub.subscribe(endpoint("replica-0", pub));
        warmUp(pub, view, enc);
        assertThat(view.status().complete()).as("it saw the publisher's first batch, live or replayed").isTrue();

        int[] prompt = tokens(500, 5 * B + 3);
        pub.publish(batch(enc, 1, 0, stored(new long[]{11, 12}, null, slice(prompt, 0, 2), B, "GPU")));
        pub.publish(batch(enc, 2, 0, stored(new long[]{13, 14, 15}, 12L, slice(prompt, 2, 5), B, "GPU"),
                stored(new long[]{14}, null, new int[0], 0, "CPU")));
        await("5 blocks are indexed", () -> gpuBlocks(view, prompt) == 5);
        CachedPrefix hit = view.lookup(prompt, null, null);
        assertThat(hit.cachedTokens(prompt.length)).isEqualTo(5 * B);
        assertThat(view.holds(BlockKeys.chain(BlockKeys.root(), prompt, B)[3], Medium.CPU)).isTrue();

        pub.publish(batch(enc, 3, 0, removed("GPU", 15)));
        await("the evicted last block is gone", () -> gpuBlocks(view, prompt) == 4);
        assertThat(view.lookup(prompt, null, null).firstMissEvictedAtMillis()).isPositive();

        pub.publish(batch(enc, 4, 0, new VllmWire.Cleared()));
        await("the clear is applied", () -> view.status().index().clears() == 1);
        // The very batch that carried the clear left nothing behind.
        assertThat(view.lookup(prompt, null, null).residentBlocks()).isZero();
        assertThat(view.status().gpuBlocks()).isZero();
        // Not exactly 1: a connection lost and found again on a loaded machine replays the clear from the start.
        assertThat(view.coldEvents()).isPositive();
        await("the view is live", () -> view.status().state() == ViewState.LIVE);
    }

    @Test
    void aLostBatchIsFetchedFromTheReplaySocket() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10_000, true));
        ReplicaCacheView view = subscriber(SETTINGS).subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.MAP);
        long replaysBefore = view.status().replays();
        int[] prompt = tokens(0, 5 * B);
        pub.publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1, 2}, null, slice(prompt, 0, 2), B, "GPU")));
        pub.lose(batch(Encoding.MAP, 2, 0, stored(new long[]{3, 4}, 2L, slice(prompt, 2, 4), B, "GPU")));
        pub.publish(batch(Encoding.MAP, 3, 0, stored(new long[]{5}, 4L, slice(prompt, 4, 5), B, "GPU")));
        // Blocks 3 and 4 were never on the live stream: only the replay socket can bring them.
        await("all 5 blocks are indexed", () -> gpuBlocks(view, prompt) == 5);
        ViewStatus s = view.status();
        assertThat(s.gaps()).isPositive();
        assertThat(s.replays()).isGreaterThan(replaysBefore);
        assertThat(s.complete()).isTrue();
        assertThat(s.index().orphanStores()).as("applied in order").isZero();
        await("the view is live again", () -> view.status().state() == ViewState.LIVE);
    }

    @Test
    void aSubscriberThatJoinsLateCatchesUpFromTheStart() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10_000, true));
        int[] prompt = tokens(0, 3 * B);
        pub.publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1, 2}, null, slice(prompt, 0, 2), B, "GPU")));
        pub.publish(batch(Encoding.MAP, 2, 0, stored(new long[]{3}, 2L, slice(prompt, 2, 3), B, "GPU")));
        ReplicaCacheView view = subscriber(SETTINGS).subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.MAP);
        await("the history is replayed", () -> gpuBlocks(view, prompt) == 3);
        assertThat(view.status().complete()).isTrue();
    }

    /**
     * The publisher's engine restarts behind the same address (a relay: no port is bound twice): the connection drops,
     * the SUB connects again, and the new publisher's sequence starts over.
     */
    @Test
    void aRestartedPublisherMakesTheViewCold() throws Exception {
        TestPublisher first = closing(new TestPublisher(TOPIC, 10, false));
        LoopbackRelay relay = closing(new LoopbackRelay(first.eventsPort()));
        ReplicaCacheView view = subscriber(SETTINGS)
                .subscribe(new KvEventEndpoint("r", "127.0.0.1", relay.port(), 0, TOPIC));
        warmUp(first, view, Encoding.MAP);
        int[] a = tokens(0, 2 * B);
        // Far more batches than the second publisher sends before the test ends, so that its sequence numbers are
        // below the view's throughout.
        for (int i = 0; i < 3_000; i++) {
            first.publish(batch(Encoding.MAP, 1, 0));
        }
        first.publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1, 2}, null, a, B, "GPU")));
        await("A is indexed", () -> gpuBlocks(view, a) == 2);

        TestPublisher second = closing(new TestPublisher(TOPIC, 10, false));
        relay.restartBehind(second.eventsPort());
        first.close();
        // Its first batches may be missed while the SUB connects again.
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (view.status().publisherRestarts() == 0 && System.nanoTime() < deadline) {
            second.publish(batch(Encoding.MAP, 2, 0));
            pause(20);
        }
        assertThat(view.status().publisherRestarts()).isEqualTo(1);
        assertThat(gpuBlocks(view, a)).as("a restarted engine holds nothing of what it held").isZero();
        assertThat(view.coldEvents()).isEqualTo(1);
        int[] b = tokens(50_000, B);
        second.publish(batch(Encoding.MAP, 3, 0, stored(new long[]{7}, null, b, B, "GPU")));
        await("the new engine's block is indexed", () -> gpuBlocks(view, b) == 1);
    }

    /** The monitor's disconnection reaches the view (staleness by the clock is {@link ReplicaCacheViewTest}'s). */
    @Test
    void aViewGoesStaleOnceItsPublisherIsGone() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10, true));
        ReplicaCacheView view = subscriber(SETTINGS.withStaleAfter(Duration.ofMillis(300)))
                .subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.MAP);
        await("live", () -> view.status().state() == ViewState.LIVE);
        pub.close();
        await("stale once the publisher is gone", () -> view.status().state() == ViewState.STALE);
        assertThat(view.status().usable()).isFalse();
    }

    /**
     * A peer that accepts TCP connections and never greets: it stands for JeroMQ 0.6.0's connections whose greeting
     * never finishes (this class's warm-up flaked on one).
     */
    private static final class MutePeer implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> held = Collections.synchronizedList(new ArrayList<>());
        private final AtomicInteger accepted = new AtomicInteger();

        MutePeer() throws IOException {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        held.add(server.accept()); // kept open, never written to
                        accepted.incrementAndGet();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "mute-peer");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (held) {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    /**
     * The subscriber replaces the socket itself ({@code reconnects}), before JeroMQ's own handshake timer (a backstop
     * at five heartbeats) would connect again.
     */
    @Test
    void aConnectionWhoseGreetingNeverCompletesIsReplaced() throws Exception {
        MutePeer mute = closing(new MutePeer());
        ReplicaCacheView view = subscriber(QUICK_HEARTBEAT)
                .subscribe(new KvEventEndpoint("mute", "127.0.0.1", mute.port(), 0, TOPIC));
        await("a new socket connects after the first one's greeting stalled",
                () -> view.reconnects() >= 1 && mute.accepted() >= 2);
    }

    /**
     * The replay socket's first connection goes (through a relay) to a peer that never greets, the next ones to the
     * publisher's ROUTER. The replay a late joiner asks for waits in the stalled socket; once that socket is replaced,
     * the replay is asked again on the new one and the view catches up from the start (with no replacement, or no
     * asking again, it would wait for the 60 s replay timeout and stay partial).
     */
    @Test
    void aReplayConnectionWhoseGreetingNeverCompletesIsReplacedAndTheReplayAskedAgain() throws Exception {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10_000, true));
        MutePeer mute = closing(new MutePeer());
        LoopbackRelay replayRelay = closing(new LoopbackRelay(mute.port()));
        int[] prompt = tokens(0, 3 * B);
        pub.publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1, 2}, null, slice(prompt, 0, 2), B, "GPU")));
        pub.publish(batch(Encoding.MAP, 2, 0, stored(new long[]{3}, 2L, slice(prompt, 2, 3), B, "GPU")));
        // Heartbeats of 1 s: the stalled socket is replaced after 2 s, by when the replay has been asked for.
        KvEventsSettings settings = new KvEventsSettings(Duration.ofSeconds(10), PATIENCE, Duration.ofSeconds(1),
                10_000, 1024, Duration.ofMillis(20));
        ReplicaCacheView view = subscriber(settings)
                .subscribe(new KvEventEndpoint("r", "127.0.0.1", pub.eventsPort(), replayRelay.port(), TOPIC));
        await("the replay socket connected to the mute peer", () -> mute.accepted() >= 1);
        replayRelay.sendNewConnectionsTo(pub.replayPort());
        warmUp(pub, view, Encoding.MAP);
        await("the history is replayed", () -> gpuBlocks(view, prompt) == 3);
        assertThat(view.status().complete()).isTrue();
        assertThat(view.reconnects()).as("the stalled replay socket was replaced").isPositive();
    }

    @Test
    void eachDataParallelRankHasItsOwnViewOnPortPlusRank() {
        TestPublisher[] ranks = consecutivePublishers();
        List<KvEventEndpoint> endpoints = KvEventEndpoint.ranks("gpu-box", "127.0.0.1", ranks[0].eventsPort(), 0, 2,
                TOPIC);
        KvEventSubscriber sub = subscriber(SETTINGS);
        ReplicaCacheView rank0 = sub.subscribe(endpoints.get(0));
        ReplicaCacheView rank1 = sub.subscribe(endpoints.get(1));
        assertThat(rank1.id()).isEqualTo("gpu-box/rank-1");
        warmUp(ranks[0], rank0, Encoding.MAP);
        warmUp(ranks[1], rank1, Encoding.MAP);
        int[] p0 = tokens(0, B);
        int[] p1 = tokens(1_000, B);
        ranks[0].publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1}, null, p0, B, "GPU")));
        ranks[1].publish(batch(Encoding.MAP, 1, 1, stored(new long[]{2}, null, p1, B, "GPU")));
        await("each rank's block is indexed", () -> gpuBlocks(rank0, p0) == 1 && gpuBlocks(rank1, p1) == 1);
        assertThat(gpuBlocks(rank0, p1)).isZero();
        assertThat(gpuBlocks(rank1, p0)).isZero();
        assertThat(sub.view("gpu-box/rank-0")).containsSame(rank0);
    }

    /** The first bound at port 0, the second on the port after it if that is free (else both again elsewhere). */
    private TestPublisher[] consecutivePublishers() {
        for (int attempt = 0; attempt < 50; attempt++) {
            TestPublisher first = new TestPublisher(TOPIC, 10, false);
            try {
                TestPublisher second = new TestPublisher(TOPIC, 10, false, first.eventsPort() + 1);
                return new TestPublisher[]{closing(first), closing(second)};
            } catch (ZMQException e) {
                first.close();
            }
        }
        throw new AssertionError("no two consecutive free ports");
    }

    /**
     * Two models' publishers on one socket. Each connection delivers in order, so a view that took a batch published
     * after the other topic's batch would have taken that one first had its subscription let it through. The views'
     * event counts say what each took (warm-up batches carry none; resets do not lower them).
     */
    @Test
    void onlyTheSubscribedTopicIsTaken() {
        String otherTopic = "another-model";
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10, false));
        KvEventSubscriber sub = subscriber(SETTINGS);
        ReplicaCacheView mine = sub.subscribe(endpoint("mine", pub));
        ReplicaCacheView other = sub.subscribe(new KvEventEndpoint("other", "127.0.0.1", pub.eventsPort(), 0,
                otherTopic));
        warmUp(pub, mine, Encoding.MAP);
        long otherSeq = 0;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (other.status().batches() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the other view never received a batch");
            }
            pub.publishUnder(otherTopic, otherSeq++, batch(Encoding.MAP, 0, 0));
            pause(20);
        }
        int[] x = tokens(0, B);
        int[] y = tokens(1_000, B);
        int[] z = tokens(2_000, B);
        pub.publishUnder(otherTopic, otherSeq++, batch(Encoding.MAP, 1, 0, stored(new long[]{1}, null, x, B, "GPU")));
        pub.publish(batch(Encoding.MAP, 2, 0, stored(new long[]{2}, null, y, B, "GPU")));
        pub.publishUnder(otherTopic, otherSeq, batch(Encoding.MAP, 3, 0, stored(new long[]{3}, null, z, B, "GPU")));
        await("each view took the batch published after the other topic's",
                () -> gpuBlocks(mine, y) == 1 && gpuBlocks(other, z) == 1);
        assertThat(mine.status().events()).as("y alone: x, published before it under the other topic, was not taken")
                .isEqualTo(1);
        assertThat(other.status().events()).as("x and z: y, published between them under this topic, was not taken")
                .isEqualTo(2);
        assertThat(gpuBlocks(other, x)).isEqualTo(1);
    }

    @Test
    void closingLeavesNoThreadBehind() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10, true));
        KvEventSubscriber sub = KvEventSubscriber.start(SETTINGS);
        ReplicaCacheView view = sub.subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.MAP);
        sub.unsubscribe("r");
        sub.subscribe(endpoint("r2", pub));
        List<Thread> started = sub.threadsStarted();
        assertThat(started).extracting(Thread::getName)
                .as("its own thread and its JeroMQ context's I/O and reaper threads")
                .contains("lmw-kv-events")
                .anyMatch(name -> name.startsWith("lmw-kv-events-iothread"))
                .anyMatch(name -> name.startsWith("lmw-kv-events-reaper"));
        sub.close();
        assertThat(sub.views()).isEmpty();
        await("none of the threads it started is alive", () -> sub.threadsStarted().stream().noneMatch(Thread::isAlive));
    }
}
