package io.lmwarden.router.kvevents;

import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Follows the KV events of any number of engines on one thread of its own: one JeroMQ context (one I/O thread), one
 * SUB socket and a replay DEALER per engine, each with its monitor, all polled together, and each batch applied to its
 * engine's {@link ReplicaCacheView}. Nothing here runs on, or waits for, a Vert.x event loop: {@link #subscribe} and
 * {@link #unsubscribe} only queue the change for the subscriber thread; views are read from any thread.
 * {@link #close} stops the thread and terminates the context, leaving no thread behind.
 */
public final class KvEventSubscriber implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(KvEventSubscriber.class.getName());

    private final KvEventsSettings settings;
    private final KvEventDecoder decoder = new KvEventDecoder();
    private final Map<String, ReplicaCacheView> views = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Runnable> changes = new ConcurrentLinkedQueue<>();
    private final Map<String, KvEventStream> streams = new LinkedHashMap<>(); // the subscriber thread's own
    private final Thread thread;
    private final List<Thread> threadsStarted = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;
    private ZContext context;
    private int monitors;

    private KvEventSubscriber(KvEventsSettings settings) {
        this.settings = settings;
        this.thread = newThread(this::run, "lmw-kv-events");
    }

    private Thread newThread(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threadsStarted.add(t);
        return t;
    }

    /** The threads this subscriber started: its own, and its JeroMQ context's ({@code lmw-kv-events-…}). */
    List<Thread> threadsStarted() {
        return List.copyOf(threadsStarted);
    }

    public static KvEventSubscriber start(KvEventsSettings settings) {
        KvEventSubscriber s = new KvEventSubscriber(settings);
        s.thread.start();
        return s;
    }

    /**
     * Follows an engine's publisher into the view named by {@link KvEventEndpoint#viewId()}, replacing any earlier
     * subscription of that view (its index starts empty again). The view is returned at once; it fills as batches
     * arrive.
     */
    public ReplicaCacheView subscribe(KvEventEndpoint endpoint) {
        ReplicaCacheView view = new ReplicaCacheView(endpoint.viewId(), settings.staleAfter(),
                settings.evictionLogCapacity());
        views.put(endpoint.viewId(), view);
        changes.add(() -> {
            closeStream(endpoint.viewId());
            if (views.get(endpoint.viewId()) != view) {
                return;
            }
            try {
                streams.put(endpoint.viewId(), new KvEventStream(context, endpoint, view, settings, decoder,
                        "inproc://lmw-kv-monitor-" + monitors++));
            } catch (RuntimeException e) {
                // The view stays unconnected and goes stale; placement falls back to its estimates.
                LOG.log(Level.WARNING, "cannot follow KV events of " + endpoint.viewId() + " at "
                        + endpoint.host() + ":" + endpoint.eventsPort(), e);
            }
        });
        return view;
    }

    /** Stops following the view's publisher and forgets the view. */
    public void unsubscribe(String viewId) {
        views.remove(viewId);
        changes.add(() -> closeStream(viewId));
    }

    public Optional<ReplicaCacheView> view(String viewId) {
        return Optional.ofNullable(views.get(viewId));
    }

    public Collection<ReplicaCacheView> views() {
        return List.copyOf(views.values());
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        views.clear();
    }

    private void run() {
        context = new ZContext(1);
        context.setLinger(0);
        context.setThreadFactor((body, name) -> newThread(body, "lmw-kv-events-" + name));
        // JeroMQ prints its I/O threads' failures to standard error by default, which breaks a JSON log stream; while
        // closing they are its own termination race and say nothing about the engines.
        Thread.UncaughtExceptionHandler toLog = (t, e) -> LOG.log(running ? Level.WARNING : Level.FINE,
                "KV-event socket thread " + t.getName() + " failed", e);
        context.setUncaughtExceptionHandler(toLog);
        context.setNotificationExceptionHandler(toLog);
        ZMQ.Poller poller = null;
        try {
            while (running) {
                boolean changed = false;
                for (Runnable change; (change = changes.poll()) != null; ) {
                    change.run();
                    changed = true;
                }
                if (changed || poller == null) {
                    if (poller != null) {
                        poller.close();
                    }
                    poller = context.createPoller(streams.size() * 4 + 1);
                    for (KvEventStream s : streams.values()) {
                        s.register(poller);
                    }
                }
                if (streams.isEmpty()) {
                    Thread.sleep(settings.pollInterval().toMillis());
                    continue;
                }
                poller.poll(settings.pollInterval().toMillis());
                boolean reopened = false;
                for (KvEventStream s : streams.values()) {
                    serviceOne(s, poller);
                    reopened |= s.replaceStuckSockets();
                }
                if (reopened) {
                    poller.close();
                    poller = null; // rebuilt with the new sockets on the next round
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "KV-event subscriber stopped", e);
        } finally {
            for (KvEventStream s : new ArrayList<>(streams.values())) {
                s.close();
            }
            streams.clear();
            if (poller != null) {
                poller.close();
            }
            context.close();
        }
    }

    private static void serviceOne(KvEventStream stream, ZMQ.Poller poller) {
        try {
            stream.service(poller);
        } catch (RuntimeException e) {
            // One engine's bad stream must not stop the others.
            LOG.log(Level.WARNING, "KV-event stream of " + stream.view().id() + " failed", e);
        }
    }

    private void closeStream(String viewId) {
        KvEventStream old = streams.remove(viewId);
        if (old != null) {
            old.close();
        }
    }
}
