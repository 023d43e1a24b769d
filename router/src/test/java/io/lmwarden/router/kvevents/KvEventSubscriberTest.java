package io.lmwarden.router.kvevents;

import io.lmwarden.router.kvevents.VllmWire.Encoding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.ZMQException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static io.lmwarden.router.kvevents.VllmWire.batch;
import static io.lmwarden.router.kvevents.VllmWire.removed;
import static io.lmwarden.router.kvevents.VllmWire.stored;
import static io.lmwarden.router.kvevents.VllmWire.tokens;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The subscriber against real ZeroMQ sockets on 127.0.0.1: a PUB and a replay ROUTER that behave as vLLM's
 * publisher ({@link TestPublisher}), batches encoded as vLLM encodes them ({@link VllmWire}). Waits are for a
 * condition, with a deadline far beyond what a loaded machine needs, never a fixed sleep that a test relies on.
 */
class KvEventSubscriberTest {

    private static final int B = 16;
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String TOPIC = "kv-events";
    /** Replays here are answered at once; the long timeout keeps a loaded machine from turning one into a resync. */
    private static final KvEventsSettings SETTINGS = KvEventsSettings.defaults().withReplayTimeout(PATIENCE);

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
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /**
     * Publishes empty batches until the view has taken one: a SUB socket that has just connected misses what was
     * sent before its subscription reached the publisher (ZeroMQ's slow joiner).
     */
    private static void warmUp(TestPublisher pub, ReplicaCacheView view, Encoding enc) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (view.status().batches() == 0 || view.status().state() == ViewState.SYNCING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the view never received a batch");
            }
            pub.publish(batch(enc, 0, 0));
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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

        long before = view.status().batches();
        pub.publish(batch(enc, 4, 0, new VllmWire.Cleared()));
        await("the clear is applied", () -> view.status().batches() > before);
        // The very batch that carried the clear left nothing behind.
        assertThat(view.lookup(prompt, null, null).residentBlocks()).isZero();
        assertThat(view.status().gpuBlocks()).isZero();
        assertThat(view.status().index().clears()).isEqualTo(1);
        assertThat(view.status().state()).isEqualTo(ViewState.LIVE);
        assertThat(view.status().gaps()).isZero();
        assertThat(view.status().resyncs()).isZero();
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
        await("all 5 blocks are indexed", () -> gpuBlocks(view, prompt) == 5);
        ViewStatus s = view.status();
        assertThat(s.gaps()).isEqualTo(1);
        assertThat(s.replays()).isEqualTo(replaysBefore + 1);
        assertThat(s.resyncs()).isZero();
        assertThat(s.complete()).isTrue();
        assertThat(s.index().orphanStores()).isZero();
        await("the view is live again", () -> view.status().state() == ViewState.LIVE);
    }

    @Test
    void aGapTheReplayBufferNoLongerCoversDropsTheViewAndRebuildsIt() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 2, true));
        ReplicaCacheView view = subscriber(SETTINGS).subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.ARRAY);
        int[] a = tokens(0, 2 * B);
        int[] e = tokens(9_000, 2 * B);
        pub.publish(batch(Encoding.ARRAY, 1, 0, stored(new long[]{1, 2}, null, a, B, "GPU")));
        await("A is indexed", () -> gpuBlocks(view, a) == 2);
        // The engine evicts A, but that batch never arrives, and the publisher's buffer moves past it.
        pub.lose(batch(Encoding.ARRAY, 2, 0, removed("GPU", 1, 2)));
        pub.lose(batch(Encoding.ARRAY, 3, 0));
        pub.lose(batch(Encoding.ARRAY, 4, 0));
        pub.publish(batch(Encoding.ARRAY, 5, 0, stored(new long[]{21, 22}, null, e, B, "GPU")));
        await("E is indexed", () -> gpuBlocks(view, e) == 2);
        ViewStatus s = view.status();
        assertThat(s.resyncs()).isEqualTo(1);
        assertThat(s.complete()).isFalse();
        assertThat(gpuBlocks(view, a)).as("A was dropped with the view, as the engine dropped it").isZero();
    }

    @Test
    void withoutAReplaySocketAGapResyncs() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10, false));
        ReplicaCacheView view = subscriber(SETTINGS).subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.MAP);
        int[] a = tokens(0, B);
        int[] c = tokens(100, B);
        pub.publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1}, null, a, B, "GPU")));
        await("A is indexed", () -> gpuBlocks(view, a) == 1);
        pub.lose(batch(Encoding.MAP, 2, 0, removed("GPU", 1)));
        pub.publish(batch(Encoding.MAP, 3, 0, stored(new long[]{3}, null, c, B, "GPU")));
        await("C is indexed", () -> gpuBlocks(view, c) == 1);
        assertThat(view.status().gaps()).isEqualTo(1);
        assertThat(view.status().resyncs()).isEqualTo(1);
        assertThat(view.status().replays()).isZero();
        assertThat(gpuBlocks(view, a)).isZero();
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
        assertThat(view.status().resyncs()).isZero();
    }

    @Test
    void aRestartedPublisherMakesTheViewCold() throws Exception {
        TestPublisher first = closing(new TestPublisher(TOPIC, 10, false));
        int port = first.eventsPort();
        ReplicaCacheView view = subscriber(SETTINGS)
                .subscribe(new KvEventEndpoint("r", "127.0.0.1", port, 0, TOPIC));
        warmUp(first, view, Encoding.MAP);
        int[] a = tokens(0, 2 * B);
        // Far more batches than the second publisher can send while the SUB reconnects, so that its sequence
        // numbers are below the view's for the whole test.
        for (int i = 0; i < 3_000; i++) {
            first.publish(batch(Encoding.MAP, 1, 0));
        }
        first.publish(batch(Encoding.MAP, 1, 0, stored(new long[]{1, 2}, null, a, B, "GPU")));
        await("A is indexed", () -> gpuBlocks(view, a) == 2);
        first.close();
        TestPublisher second = closing(rebind(port));
        int[] b = tokens(50_000, B);
        // Its sequence starts at 0 again; the first batches may be missed while the SUB reconnects.
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (view.status().publisherRestarts() == 0 && System.nanoTime() < deadline) {
            second.publish(batch(Encoding.MAP, 2, 0));
            Thread.sleep(20);
        }
        assertThat(view.status().publisherRestarts()).isEqualTo(1);
        assertThat(gpuBlocks(view, a)).as("a restarted engine holds nothing of what it held").isZero();
        second.publish(batch(Encoding.MAP, 3, 0, stored(new long[]{7}, null, b, B, "GPU")));
        await("the new engine's block is indexed", () -> gpuBlocks(view, b) == 1);
    }

    private static TestPublisher rebind(int port) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                return new TestPublisher(TOPIC, 10, false, port);
            } catch (ZMQException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50); // the old socket's port is not free yet
            }
        }
    }

    @Test
    void aViewGoesStaleWhenSilentUnderTrafficOrDisconnected() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10, true));
        KvEventsSettings settings = SETTINGS.withStaleAfter(Duration.ofMillis(300));
        ReplicaCacheView view = subscriber(settings).subscribe(endpoint("r", pub));
        warmUp(pub, view, Encoding.MAP);
        await("live", () -> view.status().state() == ViewState.LIVE);
        // Requests keep going there and no event follows (a warm-up batch still in flight may answer the first ones).
        await("stale after silence under traffic", () -> {
            view.noteTraffic();
            return view.status().state() == ViewState.STALE;
        });
        assertThat(view.status().usable()).isFalse();
        pub.publish(batch(Encoding.MAP, 1, 0));
        await("live again once it speaks", () -> view.status().state() == ViewState.LIVE);
        pub.close();
        await("stale once the publisher is gone", () -> view.status().state() == ViewState.STALE);
    }

    /**
     * JeroMQ 0.6.0 sometimes leaves a fresh SUB connection with its greeting unfinished for good (this class's warm-up
     * flaked on it). A peer that accepts the TCP connection and never greets stands for it: the subscriber must
     * connect again rather than wait on that connection forever.
     */
    @Test
    void aConnectionWhoseGreetingNeverCompletesIsReplaced() throws Exception {
        java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        List<java.net.Socket> held = java.util.Collections.synchronizedList(new ArrayList<>());
        try (java.net.ServerSocket mute = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!mute.isClosed()) {
                    try {
                        held.add(mute.accept()); // kept open, never written to
                        accepted.incrementAndGet();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "mute-publisher");
            acceptor.setDaemon(true);
            acceptor.start();
            KvEventsSettings quick = new KvEventsSettings(Duration.ofSeconds(10), PATIENCE, Duration.ofMillis(200), 10_000,
                    1024, Duration.ofMillis(20));
            subscriber(quick).subscribe(new KvEventEndpoint("mute", "127.0.0.1", mute.getLocalPort(), 0, TOPIC));
            await("a second connection after the first one's greeting stalled", () -> accepted.get() >= 2);
        } finally {
            for (java.net.Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void eachDataParallelRankHasItsOwnViewOnPortPlusRank() throws Exception {
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

    @Test
    void onlyTheSubscribedTopicIsTaken() {
        TestPublisher pub = closing(new TestPublisher(TOPIC, 10, false));
        KvEventSubscriber sub = subscriber(SETTINGS);
        ReplicaCacheView right = sub.subscribe(endpoint("right", pub));
        ReplicaCacheView wrong = sub.subscribe(new KvEventEndpoint("wrong", "127.0.0.1", pub.eventsPort(), 0,
                "another-model"));
        warmUp(pub, right, Encoding.MAP);
        await("both are connected", () -> wrong.status().state() == ViewState.LIVE);
        long deadline = right.status().batches() + 50;
        while (right.status().batches() < deadline) {
            pub.publish(batch(Encoding.MAP, 1, 0));
            Thread.yield();
        }
        assertThat(wrong.status().batches()).isZero();
    }

    @Test
    void closingLeavesNoThreadBehind() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (TestPublisher pub = new TestPublisher(TOPIC, 10, true)) {
            KvEventSubscriber sub = KvEventSubscriber.start(SETTINGS);
            ReplicaCacheView view = sub.subscribe(endpoint("r", pub));
            warmUp(pub, view, Encoding.MAP);
            sub.unsubscribe("r");
            sub.subscribe(endpoint("r2", pub));
            sub.close();
            assertThat(sub.views()).isEmpty();
        }
        await("only the threads from before remain", () -> {
            Set<Thread> now = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .collect(Collectors.toSet());
            now.removeAll(before);
            return now.isEmpty();
        });
    }
}
