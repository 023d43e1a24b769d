package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.admission.AdmissionController.Ticket;
import io.lmwarden.router.session.RequestFacts;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The admitted requests' holds on their sessions' residency, known by the request's facts (one object per request)
 * until the request ends. Opening and looking up run under the controller's lock; a ticket's close takes it.
 */
final class Tickets {

    /** What a step's end does to admission's state; runs under the controller's lock. */
    interface StepEnd {
        void ended(String session, long nowNanos);
    }

    private final Object lock;
    private final LongSupplier clock;
    private final StepEnd onEnd;
    private final Runnable afterEnd;
    private final Map<RequestFacts, Ticket> open = new IdentityHashMap<>();

    /**
     * @param lock     the controller's lock
     * @param onEnd    a step ended (under the lock)
     * @param afterEnd then, outside the lock (the queue pump: room may have come free)
     */
    Tickets(Object lock, LongSupplier clock, StepEnd onEnd, Runnable afterEnd) {
        this.lock = lock;
        this.clock = clock;
        this.onEnd = onEnd;
        this.afterEnd = afterEnd;
    }

    /** A new hold for the request's step; {@link Ticket#close} exactly once, when the request ends. */
    Ticket open(RequestFacts facts, String session) {
        Ticket t = new Ticket() {
            private boolean closed;

            @Override
            public void close() {
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    open.remove(facts);
                    onEnd.ended(session, clock.getAsLong());
                }
                afterEnd.run();
            }
        };
        open.put(facts, t);
        return t;
    }

    /** Whether the request holds an admission already (it is placed again: a retry). */
    boolean holds(RequestFacts facts) {
        return open.containsKey(facts);
    }

    /** The request's hold, or {@link Ticket#NONE} when it has none. */
    Ticket of(RequestFacts facts) {
        return open.getOrDefault(facts, Ticket.NONE);
    }
}
