package io.lmwarden.router.kvevents;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * One publisher's stream into one cache view, with vLLM's sequence rules: each batch carries an 8-byte big-endian
 * sequence number, counting from 0 when the publisher starts. In order → applied. A gap → the missed batches are
 * asked for on the replay socket (a DEALER sends an empty delimiter and the 8-byte start; the publisher's ROUTER
 * answers with (seq, payload) frames and ends with (-1, empty)) while live batches wait in a buffer; when the replay
 * cannot cover the gap (its buffer moved on), has no socket, or does not end in time, the view is dropped and rebuilt
 * from what follows (a resync). A sequence number lower than expected means the publisher restarted: its engine's
 * cache started empty, so the view is dropped at once. The first batch seen after subscribing asks for a replay from
 * 0, so a view that starts while the replay buffer still holds the publisher's beginning is complete.
 * <p>
 * Owned by the subscriber thread: its sockets are touched by no other.
 */
final class KvEventStream {

    private static final Logger LOG = Logger.getLogger(KvEventStream.class.getName());
    private static final long END_OF_REPLAY = -1;
    private static final int MAX_MESSAGES_PER_POLL = 1_000;
    private static final long SILENT_REOPEN_NANOS = 30_000_000_000L;

    private final KvEventEndpoint endpoint;
    private final ReplicaCacheView view;
    private final KvEventsSettings settings;
    private final KvEventDecoder decoder;
    private final ZContext ctx;
    private final String monitorAddress;
    private final ZMQ.Socket replay;
    private ZMQ.Socket sub;
    private ZMQ.Socket monitor;
    private int subGeneration;
    private long subOpenedNanos;
    private long tcpConnectedNanos = Long.MIN_VALUE;
    private boolean handshaken;
    private boolean disconnectedOnce;
    /** The next sequence number before the connection was lost, while the replay after reconnecting runs; else -1. */
    private long expectedBeforeReconnect = -1;
    private byte[] unsentReplayRequest;

    private int subIndex = -1;
    private int monitorIndex = -1;
    private int replayIndex = -1;

    private long expected = -1; // the next sequence number; -1 before the first batch
    private boolean replaying;
    private boolean catchingUpFromStart;
    private long replayDeadlineNanos;
    private final ArrayDeque<Frame> heldBack = new ArrayDeque<>();

    private record Frame(long seq, byte[] payload) {
    }

    KvEventStream(ZContext ctx, KvEventEndpoint endpoint, ReplicaCacheView view, KvEventsSettings settings,
                  KvEventDecoder decoder, String monitorAddress) {
        this.ctx = ctx;
        this.endpoint = endpoint;
        this.view = view;
        this.settings = settings;
        this.decoder = decoder;
        this.monitorAddress = monitorAddress;
        int heartbeat = (int) settings.heartbeat().toMillis();
        openSub();
        if (endpoint.hasReplay()) {
            replay = ctx.createSocket(SocketType.DEALER);
            replay.setLinger(0);
            replay.setReconnectIVL(100);
            replay.setReconnectIVLMax(1_000);
            replay.setHeartbeatIvl(heartbeat);
            replay.setHeartbeatTimeout(heartbeat * 3);
            replay.setHandshakeIvl(heartbeat);
            replay.connect("tcp://" + endpoint.host() + ":" + endpoint.replayPort());
        } else {
            replay = null;
        }
    }

    /**
     * A new SUB socket with its monitor. Each one gets a monitor address of its own: a closed monitor's inproc address
     * is not free again at once.
     */
    private void openSub() {
        int heartbeat = (int) settings.heartbeat().toMillis();
        String address = monitorAddress + "-" + subGeneration++;
        sub = ctx.createSocket(SocketType.SUB);
        sub.setLinger(0);
        sub.setRcvHWM(100_000);
        sub.setReconnectIVL(100);
        sub.setReconnectIVLMax(1_000);
        sub.setHeartbeatIvl(heartbeat);
        sub.setHeartbeatTimeout(heartbeat * 3);
        // A greeting that does not complete within this closes the connection, and ZeroMQ connects again.
        sub.setHandshakeIvl(heartbeat);
        // The monitor goes on before connecting, so that the first connection is seen.
        sub.monitor(address, ZMQ.EVENT_CONNECTED | ZMQ.EVENT_DISCONNECTED | ZMQ.EVENT_HANDSHAKE_PROTOCOL);
        monitor = ctx.createSocket(SocketType.PAIR);
        monitor.setLinger(0);
        monitor.connect(address);
        sub.subscribe(endpoint.topic().getBytes(StandardCharsets.UTF_8));
        sub.connect("tcp://" + endpoint.host() + ":" + endpoint.eventsPort());
        subOpenedNanos = System.nanoTime();
        tcpConnectedNanos = Long.MIN_VALUE;
        handshaken = false;
    }

    private void closeSub() {
        sub.monitor(null, 0);
        sub.close();
        monitor.close();
    }

    /**
     * JeroMQ 0.6.0 sometimes leaves a fresh SUB connection with its greeting unfinished for good: connected, never
     * subscribed, silent. Such a socket (connected without a finished handshake for two heartbeats) is replaced by a
     * new one; so is one that stayed silent for {@link #SILENT_REOPEN_NANOS} (or three {@code staleAfter}s, if longer)
     * while the router kept sending its engine requests, at most once per that period. Returns whether it was, so
     * that the poller is rebuilt. (A replaced socket may miss what is published while it connects: the next batch
     * shows the gap, and the replay fills it.)
     */
    boolean reconnectIfSilent() {
        long now = System.nanoTime();
        long patience = settings.heartbeat().toNanos() * 2;
        long silentLimit = Math.max(SILENT_REOPEN_NANOS, settings.staleAfter().toNanos() * 3);
        boolean stuckGreeting = tcpConnectedNanos != Long.MIN_VALUE && !handshaken && now - tcpConnectedNanos > patience;
        boolean silentUnderTraffic = view.unansweredTrafficNanos(now) > silentLimit && now - subOpenedNanos > silentLimit;
        if (!stuckGreeting && !silentUnderTraffic) {
            return false;
        }
        LOG.info(() -> "KV-event stream of " + view.id() + " at " + endpoint.host() + ":" + endpoint.eventsPort()
                + (stuckGreeting ? " connected without finishing its handshake" : " silent while requests were sent")
                + "; connecting a new socket");
        view.countReconnect();
        closeSub();
        openSub();
        return true;
    }

    ReplicaCacheView view() {
        return view;
    }

    void register(ZMQ.Poller poller) {
        subIndex = poller.register(sub, ZMQ.Poller.POLLIN);
        monitorIndex = poller.register(monitor, ZMQ.Poller.POLLIN);
        replayIndex = replay == null ? -1 : poller.register(replay, ZMQ.Poller.POLLIN);
    }

    /** Reads what is waiting on this stream's sockets and runs its timers. */
    void service(ZMQ.Poller poller) {
        if (poller.pollin(monitorIndex)) {
            readMonitor();
        }
        if (replayIndex >= 0 && poller.pollin(replayIndex)) {
            readReplay();
        }
        if (poller.pollin(subIndex)) {
            readLive();
        }
        if (replaying && unsentReplayRequest != null) {
            sendReplayRequest();
        }
        if (replaying && System.nanoTime() - replayDeadlineNanos > 0) {
            LOG.warning(() -> "KV-event replay from " + endpoint.host() + ":" + endpoint.replayPort()
                    + " did not end within " + settings.replayTimeout() + "; resynchronising view " + view.id());
            endReplay();
        }
    }

    void close() {
        closeSub();
        if (replay != null) {
            replay.close();
        }
    }

    private void readMonitor() {
        ZMQ.Event event;
        while ((event = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
            if (event.getEvent() == ZMQ.EVENT_CONNECTED) {
                tcpConnectedNanos = System.nanoTime();
                view.connected(true);
            } else if (event.getEvent() == ZMQ.EVENT_HANDSHAKE_PROTOCOL) {
                handshaken = true;
                if (disconnectedOnce) {
                    reconnected();
                }
            } else if (event.getEvent() == ZMQ.EVENT_DISCONNECTED) {
                disconnectedOnce = true;
                tcpConnectedNanos = Long.MIN_VALUE;
                handshaken = false;
                view.connected(false);
            }
        }
    }

    private void readLive() {
        for (int n = 0; n < MAX_MESSAGES_PER_POLL; n++) {
            List<byte[]> parts = receive(sub);
            if (parts == null) {
                return;
            }
            view.batchArrived();
            // [topic, seq, payload]
            if (parts.size() != 3 || parts.get(1).length != 8) {
                view.apply(KvEventBatch.unreadable(), System.currentTimeMillis());
                continue;
            }
            onLive(ByteBuffer.wrap(parts.get(1)).getLong(), parts.get(2));
        }
    }

    private void onLive(long seq, byte[] payload) {
        if (replaying) {
            heldBack.add(new Frame(seq, payload));
            if (heldBack.size() >= settings.maxBufferedDuringReplay()) {
                endReplay();
            }
            return;
        }
        if (expected < 0) {
            firstBatch(seq, payload);
        } else if (seq == expected) {
            apply(seq, payload);
        } else if (seq < expected) {
            // Sequence numbers only go back when the publisher starts over, and a new engine's cache is empty.
            view.countRestart();
            view.reset(false, System.currentTimeMillis());
            firstBatch(seq, payload);
        } else {
            view.countGap();
            if (replay != null) {
                startReplay(expected, seq, payload);
            } else {
                resync();
                apply(seq, payload);
            }
        }
    }

    private void firstBatch(long seq, byte[] payload) {
        if (seq == 0) {
            view.markComplete();
            apply(seq, payload);
        } else if (replay != null) {
            catchingUpFromStart = true;
            startReplay(0, seq, payload);
        } else {
            apply(seq, payload);
        }
    }

    /**
     * Connected again after the publisher went away. Its socket closing is, for vLLM, almost always its engine going
     * (a restart: the cache is empty), and an idle restarted engine publishes nothing that would tell. So the view is
     * dropped and rebuilt from the publisher's replay buffer from sequence 0: a restarted publisher's buffer holds its
     * whole new life (the view is complete, and cold if that is all); one that only lost the connection gives back what
     * it still buffers. Without a replay socket the view starts over partial with the next batch.
     */
    private void reconnected() {
        if (replay == null || expected < 0) {
            return; // the sequence rule still tells a restart from a blip once batches flow
        }
        view.countResync();
        view.reset(false, System.currentTimeMillis());
        heldBack.clear();
        expectedBeforeReconnect = expected;
        expected = 0;
        catchingUpFromStart = true;
        askReplay(0);
    }

    private void startReplay(long from, long seq, byte[] payload) {
        heldBack.clear();
        heldBack.add(new Frame(seq, payload));
        expected = from;
        askReplay(from);
    }

    private void askReplay(long from) {
        unsentReplayRequest = ByteBuffer.allocate(8).putLong(from).array();
        sendReplayRequest();
        replaying = true;
        replayDeadlineNanos = System.nanoTime() + settings.replayTimeout().toNanos();
        view.syncing(true);
        view.countReplay();
    }

    /**
     * Never blocks: a DEALER without a connected peer (the replay socket reconnecting) would block a plain send, and
     * with it every stream. What cannot go now is tried again on the next poll, until the replay times out.
     */
    private void sendReplayRequest() {
        byte[] request = unsentReplayRequest;
        if (request != null && replay.send(new byte[0], ZMQ.SNDMORE | ZMQ.DONTWAIT)) {
            replay.send(request, 0);
            unsentReplayRequest = null;
        }
    }

    private void readReplay() {
        for (int n = 0; n < MAX_MESSAGES_PER_POLL; n++) {
            List<byte[]> parts = receive(replay);
            if (parts == null) {
                return;
            }
            // [empty delimiter, seq, payload]
            int at = parts.size() == 3 && parts.get(0).length == 0 ? 1 : 0;
            if (parts.size() - at != 2 || parts.get(at).length != 8 || !replaying) {
                continue; // a malformed frame, or the tail of a replay already given up
            }
            long seq = ByteBuffer.wrap(parts.get(at)).getLong();
            if (seq == END_OF_REPLAY) {
                endReplay();
                continue;
            }
            view.batchArrived();
            if (seq < expected) {
                continue;
            }
            if (catchingUpFromStart) {
                catchingUpFromStart = false;
                if (seq == 0) {
                    view.markComplete();
                }
            } else if (seq > expected) {
                resync(); // the publisher's replay buffer no longer reaches back to the gap
            }
            apply(seq, parts.get(at + 1));
        }
    }

    /** Back to live: the batches held back follow what the replay brought, or the view starts over at a gap. */
    private void endReplay() {
        boolean nothingFromStart = catchingUpFromStart; // no frame came: the view simply starts partial
        replaying = false;
        unsentReplayRequest = null;
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
        for (Frame f : heldBack) {
            if (f.seq() < expected) {
                continue;
            }
            if (f.seq() > expected && !nothingFromStart) {
                resync();
            }
            nothingFromStart = false;
            apply(f.seq(), f.payload());
        }
        heldBack.clear();
    }

    private void resync() {
        view.countResync();
        view.reset(false, System.currentTimeMillis());
    }

    private void apply(long seq, byte[] payload) {
        view.apply(decoder.decode(payload), System.currentTimeMillis());
        expected = seq + 1;
    }

    private static List<byte[]> receive(ZMQ.Socket socket) {
        byte[] first = socket.recv(ZMQ.DONTWAIT);
        if (first == null) {
            return null;
        }
        List<byte[]> parts = new ArrayList<>(3);
        parts.add(first);
        while (socket.hasReceiveMore()) {
            parts.add(socket.recv());
        }
        return parts;
    }
}
