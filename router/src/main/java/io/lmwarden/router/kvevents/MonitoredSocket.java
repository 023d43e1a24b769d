package io.lmwarden.router.kvevents;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A ZeroMQ socket connected to one publisher address, with a monitor that reports its connection coming up, finishing
 * its greeting and going down. JeroMQ 0.6.0 sometimes leaves a fresh connection with its greeting unfinished for
 * good: connected, silent. {@link #greetingStalled} tells such a socket (connected without a finished greeting for
 * two heartbeats), and {@link #replace} puts a new socket in its place. JeroMQ's own handshake timer (five
 * heartbeats) stays behind as a backstop.
 * <p>
 * Owned by the subscriber thread.
 */
final class MonitoredSocket {

    /** What the monitor reports, in the order it happened. */
    interface Listener {
        default void connected() {
        }

        default void handshaken() {
        }

        default void disconnected() {
        }
    }

    private static final int MAX_MESSAGES_PER_POLL = 1_000;

    private final ZContext ctx;
    private final SocketType type;
    private final String address;
    private final String monitorAddress;
    private final Duration heartbeat;
    private final Consumer<ZMQ.Socket> configure;
    private ZMQ.Socket socket;
    private ZMQ.Socket monitor;
    private int generation;
    private long openedNanos;
    private long tcpConnectedNanos = Long.MIN_VALUE;
    private boolean handshaken;
    private int socketIndex = -1;
    private int monitorIndex = -1;

    /**
     * {@code monitorAddress}: an inproc address of this socket's own; each socket put in place gets a suffix of its
     * own, since a closed monitor's address is not free again at once. {@code configure}: options of this kind of
     * socket, set before it connects (a SUB's subscription).
     */
    MonitoredSocket(ZContext ctx, SocketType type, String address, String monitorAddress, Duration heartbeat,
                    Consumer<ZMQ.Socket> configure) {
        this.ctx = ctx;
        this.type = type;
        this.address = address;
        this.monitorAddress = monitorAddress;
        this.heartbeat = heartbeat;
        this.configure = configure;
        open();
    }

    private void open() {
        int beat = (int) heartbeat.toMillis();
        String monitored = monitorAddress + "-" + generation++;
        socket = ctx.createSocket(type);
        socket.setLinger(0);
        socket.setReconnectIVL(100);
        socket.setReconnectIVLMax(1_000);
        socket.setHeartbeatIvl(beat);
        socket.setHeartbeatTimeout(beat * 3);
        // A greeting JeroMQ does not finish within this closes the connection, and it connects again; a stalled one
        // is normally replaced sooner (greetingStalled).
        socket.setHandshakeIvl(beat * 5);
        configure.accept(socket);
        // The monitor goes on before connecting, so that the first connection is seen.
        socket.monitor(monitored, ZMQ.EVENT_CONNECTED | ZMQ.EVENT_DISCONNECTED | ZMQ.EVENT_HANDSHAKE_PROTOCOL);
        monitor = ctx.createSocket(SocketType.PAIR);
        monitor.setLinger(0);
        monitor.connect(monitored);
        socket.connect(address);
        openedNanos = System.nanoTime();
        tcpConnectedNanos = Long.MIN_VALUE;
        handshaken = false;
    }

    /** Closes this socket and connects a new one; the poller must be rebuilt ({@link #register}). */
    void replace() {
        close();
        open();
    }

    void close() {
        socket.monitor(null, 0);
        socket.close();
        monitor.close();
    }

    String address() {
        return address;
    }

    /** When the socket in place now was opened (System.nanoTime). */
    long openedNanos() {
        return openedNanos;
    }

    boolean greetingStalled(long nowNanos) {
        return tcpConnectedNanos != Long.MIN_VALUE && !handshaken
                && nowNanos - tcpConnectedNanos > heartbeat.toNanos() * 2;
    }

    void register(ZMQ.Poller poller) {
        socketIndex = poller.register(socket, ZMQ.Poller.POLLIN);
        monitorIndex = poller.register(monitor, ZMQ.Poller.POLLIN);
    }

    /** Hands the monitor's waiting events to {@code listener}, if the poller saw any. */
    void readEvents(ZMQ.Poller poller, Listener listener) {
        if (!poller.pollin(monitorIndex)) {
            return;
        }
        ZMQ.Event event;
        while ((event = ZMQ.Event.recv(monitor, ZMQ.DONTWAIT)) != null) {
            if (event.getEvent() == ZMQ.EVENT_CONNECTED) {
                tcpConnectedNanos = System.nanoTime();
                handshaken = false;
                listener.connected();
            } else if (event.getEvent() == ZMQ.EVENT_HANDSHAKE_PROTOCOL) {
                handshaken = true;
                listener.handshaken();
            } else if (event.getEvent() == ZMQ.EVENT_DISCONNECTED) {
                tcpConnectedNanos = Long.MIN_VALUE;
                handshaken = false;
                listener.disconnected();
            }
        }
    }

    /** Hands the waiting messages (up to a bound per poll) to {@code receiver}, if the poller saw any. */
    void readMessages(ZMQ.Poller poller, Consumer<List<byte[]>> receiver) {
        if (!poller.pollin(socketIndex)) {
            return;
        }
        for (int n = 0; n < MAX_MESSAGES_PER_POLL; n++) {
            byte[] first = socket.recv(ZMQ.DONTWAIT);
            if (first == null) {
                return;
            }
            List<byte[]> parts = new ArrayList<>(3);
            parts.add(first);
            while (socket.hasReceiveMore()) {
                parts.add(socket.recv());
            }
            receiver.accept(parts);
        }
    }

    /**
     * Sends a message of two frames without blocking: a DEALER without a connected peer (reconnecting) would block a
     * plain send, and with it every stream. Returns whether it went.
     */
    boolean trySend(byte[] first, byte[] second) {
        if (!socket.send(first, ZMQ.SNDMORE | ZMQ.DONTWAIT)) {
            return false;
        }
        socket.send(second, 0);
        return true;
    }
}
