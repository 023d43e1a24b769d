package io.lmwarden.sim.kvevents;

import io.lmwarden.common.logging.LogFields;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * vLLM's {@code ZmqEventPublisher} for one engine (one data-parallel rank): a PUB socket sending multipart
 * {@code [topic, 8-byte big-endian seq, msgpack KVEventBatch]}, and, with a replay endpoint, a ROUTER socket that answers
 * an 8-byte start sequence with every buffered {@code (seq, payload)} from there, then {@code (-1, empty)}. The last
 * {@code buffer_steps} batches are kept. All socket work happens on the publisher's own thread; {@link #publish} only
 * enqueues (a full queue drops the batch with a warning instead of blocking the engine).
 */
public final class ZmqKvEventPublisher implements KvEventSink, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ZmqKvEventPublisher.class.getName());
    private static final byte[] END_SEQ = ByteBuffer.allocate(8).putLong(-1).array();

    private final KvEventsConfig config;
    private final int rank;
    private final String endpoint;
    private final String replayEndpoint;
    /** What the sockets bound (a tcp port 0 resolved to the ephemeral port the kernel gave); set before the constructor returns. */
    private volatile String boundEndpoint;
    private volatile String boundReplayEndpoint;
    private final KvEventEncoder encoder;
    private final byte[] topic;
    private final BlockingQueue<Batch> queue;
    private final ArrayDeque<Sent> buffer = new ArrayDeque<>();
    private final ZContext context = quietContext();
    /** Created, bound and used only on the publisher's thread (a JeroMQ socket belongs to one thread). */
    private ZMQ.Socket pub;
    private ZMQ.Socket replay;
    private final Thread thread;
    private volatile boolean running = true;
    private long nextSeq;

    private record Batch(double ts, List<KvCacheEvent> events) {
    }

    private record Sent(long seq, byte[] payload) {
    }

    /**
     * Binds (or connects, by vLLM's rule) the sockets of data-parallel rank {@code rank}, both ports offset by
     * {@code portOffset} (the rank itself in vLLM; more when several simulated servers share one host).
     */
    public ZmqKvEventPublisher(KvEventsConfig config, int portOffset, int rank) {
        this.config = config;
        this.rank = rank;
        this.endpoint = KvEventsConfig.forRank(config.endpoint(), portOffset);
        this.replayEndpoint = KvEventsConfig.forRank(config.replayEndpoint(), portOffset);
        this.encoder = new KvEventEncoder(config.encoding());
        this.topic = config.topic().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.queue = new LinkedBlockingQueue<>(config.maxQueueSize());
        java.util.concurrent.CompletableFuture<Void> ready = new java.util.concurrent.CompletableFuture<>();
        thread = new Thread(() -> {
            try {
                openSockets();
                ready.complete(null);
            } catch (RuntimeException e) {
                ready.completeExceptionally(e);
                return;
            }
            run();
        }, "lmw-sim-kv-events-" + rank);
        thread.setDaemon(true);
        thread.start();
        try {
            ready.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            running = false;
            context.close();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("kv events: cannot open " + endpoint
                    + (replayEndpoint == null ? "" : " / " + replayEndpoint) + ": " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
            context.close();
            throw new IllegalStateException("interrupted while opening the kv events sockets", e);
        }
    }

    /**
     * A context whose I/O-thread failures go to the log as one line, not to standard error as a stack trace (which
     * breaks a JSON log stream).
     */
    private static ZContext quietContext() {
        ZContext c = new ZContext(1);
        Thread.UncaughtExceptionHandler toLog = (t, e) -> LogFields.log(LOG, java.util.logging.Level.FINE,
                "kv events socket thread failed", e, "thread", t.getName());
        c.setUncaughtExceptionHandler(toLog);
        c.setNotificationExceptionHandler(toLog);
        return c;
    }

    private void openSockets() {
        pub = context.createSocket(SocketType.PUB);
        pub.setSndHWM(config.hwm());
        pub.setLinger(0);
        // vLLM's heuristic: bind a wildcard, ipc or inproc endpoint, connect to anything else.
        if (endpoint.contains("*") || endpoint.contains("::") || endpoint.startsWith("ipc://") || endpoint.startsWith("inproc://")) {
            pub.bind(endpoint);
            boundEndpoint = bound(endpoint, pub);
        } else {
            pub.connect(endpoint);
            boundEndpoint = endpoint;
        }
        if (replayEndpoint != null) {
            replay = context.createSocket(SocketType.ROUTER);
            replay.setLinger(0);
            replay.bind(replayEndpoint);
            boundReplayEndpoint = bound(replayEndpoint, replay);
        }
    }

    /**
     * {@code configured} with the port the socket actually bound: a tcp port 0 asks the kernel for a free one (the only
     * way to get a port nothing else can take between choosing and binding it), so only the socket knows it.
     */
    private static String bound(String configured, ZMQ.Socket socket) {
        String last = socket.getLastEndpoint();
        if (!configured.startsWith("tcp://") || last == null || !last.startsWith("tcp://")) {
            return configured;
        }
        return configured.substring(0, configured.lastIndexOf(':') + 1) + last.substring(last.lastIndexOf(':') + 1);
    }

    /** The PUB endpoint as bound (or connected): the configured one, its tcp port resolved when it was 0. */
    public String endpoint() {
        return boundEndpoint;
    }

    /** The replay endpoint as bound, null without one. */
    public String replayEndpoint() {
        return boundReplayEndpoint;
    }

    /** The PUB socket's tcp port (0 when it is not a tcp endpoint). */
    public int port() {
        return KvEventsConfig.tcpPort(boundEndpoint);
    }

    /** The replay socket's tcp port (0 without one or when it is not tcp). */
    public int replayPort() {
        return KvEventsConfig.tcpPort(boundReplayEndpoint);
    }

    @Override
    public void publish(List<KvCacheEvent> events) {
        if (!running || events.isEmpty()) {
            return;
        }
        if (!queue.offer(new Batch(System.currentTimeMillis() / 1000.0, events))) {
            LogFields.warn(LOG, "kv events queue full: batch dropped", "rank", rank, "maxQueueSize", config.maxQueueSize());
        }
    }

    private void run() {
        try {
            publishUntilClosed();
        } finally {
            // The sockets' own thread closes them, and then the context: closed from another thread while this one
            // still used them, JeroMQ's I/O thread failed on a terminated mailbox and printed a raw stack trace.
            closeContext();
        }
    }

    private void closeContext() {
        context.close();
    }

    private void publishUntilClosed() {
        while (running || !queue.isEmpty()) {
            try {
                if (replay != null) {
                    serviceReplay();
                }
                Batch batch = queue.poll(replay == null ? 100 : 10, TimeUnit.MILLISECONDS);
                if (batch == null) {
                    continue;
                }
                long seq = nextSeq++;
                byte[] payload = encoder.encode(batch.ts(), batch.events(), rank);
                pub.sendMore(topic);
                pub.sendMore(seqBytes(seq));
                pub.send(payload);
                buffer.addLast(new Sent(seq, payload));
                if (buffer.size() > config.bufferSteps()) {
                    buffer.removeFirst();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | AssertionError e) {
                if (running) {
                    LogFields.log(LOG, java.util.logging.Level.WARNING, "kv events publisher error", e, "rank", rank);
                }
            }
        }
    }

    /** Answers waiting replay requests: {@code [identity, "", start seq]} → every buffered batch from there, then the end marker. */
    private void serviceReplay() {
        // Like vLLM's poll(0): asking for the socket's events makes it take in new connections and their messages first
        // (a bare non-blocking recv missed requests from a peer that had just connected).
        while ((replay.getEvents() & ZMQ.Poller.POLLIN) != 0) {
            byte[] identity = replay.recv(ZMQ.DONTWAIT);
            if (identity == null) {
                return;
            }
            java.util.List<byte[]> frames = new java.util.ArrayList<>();
            frames.add(identity);
            while (replay.hasReceiveMore()) {
                frames.add(replay.recv());
            }
            if (frames.size() != 3 || frames.get(2).length != 8) {
                LogFields.warn(LOG, "invalid kv events replay request", "rank", rank, "frames", frames.size());
                continue;
            }
            long start = ByteBuffer.wrap(frames.get(2)).getLong();
            for (Sent sent : buffer) {
                if (sent.seq() >= start) {
                    replay.sendMore(identity);
                    replay.sendMore(new byte[0]);
                    replay.sendMore(seqBytes(sent.seq()));
                    replay.send(sent.payload());
                }
            }
            replay.sendMore(identity);
            replay.sendMore(new byte[0]);
            replay.sendMore(END_SEQ);
            replay.send(new byte[0]);
        }
    }

    private static byte[] seqBytes(long seq) {
        return ByteBuffer.allocate(8).putLong(seq).array();
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            closeContext(); // the thread is stuck: free the ports all the same
        }
    }
}
