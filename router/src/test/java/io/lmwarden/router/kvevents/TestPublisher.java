package io.lmwarden.router.kvevents;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * A publisher that behaves as vLLM's {@code ZmqEventPublisher} on the wire, for tests: a PUB socket sending
 * [topic, 8-byte big-endian seq, payload], a bounded buffer of the last batches, and a ROUTER socket that answers
 * [identity, empty, 8-byte start] with [identity, empty, seq, payload] per buffered batch from the start on and
 * [identity, empty, -1, empty] at the end. It can also leave a batch out of the live stream (a lost message) while
 * keeping it for replay. Bound to 127.0.0.1 only.
 */
final class TestPublisher implements AutoCloseable {

    private final ZContext ctx = new ZContext(1);
    private final ZMQ.Socket pub;
    private final ZMQ.Socket router;
    private final byte[] topic;
    private final int bufferSteps;
    private final ArrayDeque<Object[]> buffer = new ArrayDeque<>();
    private final Thread replayThread;
    private final int eventsPort;
    private final int replayPort;
    private volatile boolean running = true;
    private long nextSeq;

    TestPublisher(String topic, int bufferSteps, boolean withReplay) {
        this(topic, bufferSteps, withReplay, 0);
    }

    /** {@code eventsPort} 0 picks a free one. */
    TestPublisher(String topic, int bufferSteps, boolean withReplay, int eventsPort) {
        this.topic = topic.getBytes(StandardCharsets.UTF_8);
        this.bufferSteps = bufferSteps;
        ctx.setLinger(0);
        pub = ctx.createSocket(SocketType.PUB);
        pub.setSndHWM(100_000); // vLLM's default hwm
        if (eventsPort == 0) {
            this.eventsPort = pub.bindToRandomPort("tcp://127.0.0.1");
        } else {
            pub.bind("tcp://127.0.0.1:" + eventsPort);
            this.eventsPort = eventsPort;
        }
        if (withReplay) {
            router = ctx.createSocket(SocketType.ROUTER);
            replayPort = router.bindToRandomPort("tcp://127.0.0.1");
            replayThread = new Thread(this::serveReplays, "test-kv-replay");
            replayThread.start();
        } else {
            router = null;
            replayPort = 0;
            replayThread = null;
        }
    }

    int eventsPort() {
        return eventsPort;
    }

    int replayPort() {
        return replayPort;
    }

    long nextSeq() {
        return nextSeq;
    }

    /** Publishes the next batch, as vLLM does. */
    void publish(byte[] payload) {
        long seq = nextSeq++;
        pub.sendMore(topic);
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        pub.send(payload);
        keep(seq, payload);
    }

    /**
     * Sends a batch under another topic, as a second model's publisher on the same socket would, with a sequence of
     * its own; this publisher's sequence and replay buffer are left alone.
     */
    void publishUnder(String otherTopic, long seq, byte[] payload) {
        pub.sendMore(otherTopic.getBytes(StandardCharsets.UTF_8));
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        pub.send(payload);
    }

    /** Takes the next sequence number and keeps the batch for replay, but the live stream never carries it. */
    void lose(byte[] payload) {
        keep(nextSeq++, payload);
    }

    private void keep(long seq, byte[] payload) {
        synchronized (buffer) {
            buffer.add(new Object[]{seq, payload});
            while (buffer.size() > bufferSteps) {
                buffer.removeFirst();
            }
        }
    }

    private void serveReplays() {
        ZMQ.Poller poller = ctx.createPoller(1);
        poller.register(router, ZMQ.Poller.POLLIN);
        try {
            while (running) {
                if (poller.poll(50) <= 0 || !poller.pollin(0)) {
                    continue;
                }
                byte[] identity = router.recv();
                byte[] delimiter = router.hasReceiveMore() ? router.recv() : null;
                byte[] start = router.hasReceiveMore() ? router.recv() : null;
                while (router.hasReceiveMore()) {
                    router.recv();
                }
                if (delimiter == null || start == null || start.length != 8) {
                    continue; // vLLM logs "Invalid replay request" and answers nothing
                }
                long from = ByteBuffer.wrap(start).getLong();
                Object[][] batches;
                synchronized (buffer) {
                    batches = buffer.toArray(new Object[0][]);
                }
                for (Object[] b : batches) {
                    if ((long) b[0] >= from) {
                        router.sendMore(identity);
                        router.sendMore(new byte[0]);
                        router.sendMore(ByteBuffer.allocate(8).putLong((long) b[0]).array());
                        router.send((byte[]) b[1]);
                    }
                }
                router.sendMore(identity);
                router.sendMore(new byte[0]);
                router.sendMore(ByteBuffer.allocate(8).putLong(-1).array());
                router.send(new byte[0]);
            }
        } catch (RuntimeException e) {
            if (running) {
                throw e;
            }
        } finally {
            poller.close();
        }
    }

    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        if (replayThread != null) {
            try {
                replayThread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ctx.close();
    }
}
