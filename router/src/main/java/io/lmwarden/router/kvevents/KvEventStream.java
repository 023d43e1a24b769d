package io.lmwarden.router.kvevents;

import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.charset.StandardCharsets;
import java.util.logging.Logger;

/**
 * One publisher's sockets, moving what they bring into the stream's {@link KvEventSequence} (which holds vLLM's
 * sequence rules) and its replay requests out: a SUB socket on the publisher's events port, and a DEALER on its replay
 * port when it has one (a request is an empty delimiter and the 8-byte start; vLLM's ROUTER answers with (seq, payload)
 * frames and ends with (-1, empty)). Either socket is replaced when its greeting stalls; the SUB also when it stays
 * silent while the router sends its engine requests.
 * <p>
 * Owned by the subscriber thread: its sockets are touched by no other.
 */
final class KvEventStream {

    private static final Logger LOG = Logger.getLogger(KvEventStream.class.getName());
    private static final long SILENT_REOPEN_NANOS = 30_000_000_000L;
    /** The replay socket's connection matters to its greeting check only. */
    private static final MonitoredSocket.Listener IGNORED = new MonitoredSocket.Listener() {
    };

    private final ReplicaCacheView view;
    private final KvEventsSettings settings;
    private final KvEventSequence sequence;
    private final MonitoredSocket.Listener liveEvents;
    private final MonitoredSocket sub;
    private final MonitoredSocket replay;

    KvEventStream(ZContext ctx, KvEventEndpoint endpoint, ReplicaCacheView view, KvEventsSettings settings,
                  KvEventDecoder decoder, String monitorAddress) {
        this.view = view;
        this.settings = settings;
        this.sequence = new KvEventSequence(view, decoder, endpoint.hasReplay(), settings, System::nanoTime);
        this.liveEvents = new MonitoredSocket.Listener() {
            @Override
            public void connected() {
                sequence.connected();
            }

            @Override
            public void handshaken() {
                sequence.handshaken();
            }

            @Override
            public void disconnected() {
                sequence.disconnected();
            }
        };
        byte[] topic = endpoint.topic().getBytes(StandardCharsets.UTF_8);
        this.sub = new MonitoredSocket(ctx, SocketType.SUB, "tcp://" + endpoint.host() + ":" + endpoint.eventsPort(),
                monitorAddress + "-sub", settings.heartbeat(), s -> {
                    s.setRcvHWM(100_000);
                    s.subscribe(topic);
                });
        this.replay = endpoint.hasReplay()
                ? new MonitoredSocket(ctx, SocketType.DEALER, "tcp://" + endpoint.host() + ":" + endpoint.replayPort(),
                monitorAddress + "-replay", settings.heartbeat(), s -> { })
                : null;
    }

    ReplicaCacheView view() {
        return view;
    }

    void register(ZMQ.Poller poller) {
        sub.register(poller);
        if (replay != null) {
            replay.register(poller);
        }
    }

    /** Reads what is waiting on this stream's sockets, sends a replay request it owes, and runs its timer. */
    void service(ZMQ.Poller poller) {
        sub.readEvents(poller, liveEvents);
        if (replay != null) {
            replay.readEvents(poller, IGNORED);
            replay.readMessages(poller, sequence::replayed);
        }
        sub.readMessages(poller, sequence::live);
        sendReplayRequest();
        sequence.tick();
    }

    /** What cannot go now (the DEALER reconnecting) is tried again on the next poll, until the replay times out. */
    private void sendReplayRequest() {
        sequence.replayToAsk().ifPresent(from -> {
            if (replay.trySend(new byte[0], KvEventFrame.replayRequest(from))) {
                sequence.replayAsked();
            }
        });
    }

    /**
     * Replaces a socket whose greeting stalled (connected without a finished handshake for two heartbeats), and a SUB
     * that stayed silent for {@link #SILENT_REOPEN_NANOS} (or three {@code staleAfter}s, if longer) while the router
     * kept sending its engine requests, at most once per that period. Returns whether one was, so that the poller is
     * rebuilt. (A replaced SUB may miss what is published while it connects: the next batch shows the gap, and the
     * replay fills it; a replaced DEALER is asked again for a replay in progress.)
     */
    boolean replaceStuckSockets() {
        long now = System.nanoTime();
        boolean replaced = false;
        long silentLimit = Math.max(SILENT_REOPEN_NANOS, settings.staleAfter().toNanos() * 3);
        boolean stuckGreeting = sub.greetingStalled(now);
        if (stuckGreeting || view.unansweredTrafficNanos(now) > silentLimit && now - sub.openedNanos() > silentLimit) {
            LOG.info(() -> "KV-event stream of " + view.id() + " at " + sub.address()
                    + (stuckGreeting ? " connected without finishing its handshake" : " silent while requests were sent")
                    + "; connecting a new socket");
            view.countReconnect();
            sub.replace();
            replaced = true;
        }
        if (replay != null && replay.greetingStalled(now)) {
            LOG.info(() -> "KV-event replay socket of " + view.id() + " at " + replay.address()
                    + " connected without finishing its handshake; connecting a new socket");
            view.countReconnect();
            replay.replace();
            sequence.replaySocketReplaced();
            replaced = true;
        }
        return replaced;
    }

    void close() {
        sub.close();
        if (replay != null) {
            replay.close();
        }
    }
}
