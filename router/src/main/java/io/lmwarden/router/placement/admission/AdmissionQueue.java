package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Requests waiting for admission, bounded in length. Two lanes: steps of sessions in progress go before newcomers,
 * the least served session first (least attained service, {@link AttainedService#orderKey}) with aging: every
 * {@code bound / }{@value #AGING_DOUBLINGS} a step waits counts as its session's service halving, so a step that has
 * waited most of the bound goes before a step just queued of a session with up to 2^{@value #AGING_DOUBLINGS} times
 * less service (arrival order among equals); newcomers first come first served. A newcomer that has waited the bound
 * leaves its lane and competes in that aged order with the steps of sessions in progress, with its own service (none,
 * for a session never served) and aged from its arrival: newcomers' waits are bounded by the same bound as everyone's
 * order, not by how long sessions in progress keep coming. A newcomer waits at most the queue timeout; a step of a
 * session in progress at most the bound, and is never turned away ({@link #overdue} says who has waited that long, for
 * the controller to admit). Not thread-safe: {@link AdmissionController} guards it.
 *
 * @param <T> what waits (the controller's waiter)
 */
public final class AdmissionQueue<T> {

    /**
     * Doublings of service a step of a session in progress makes up by waiting the whole bound. 2^8: a session's decayed
     * service spans about that between one step of an agent (~4k tokens computed) and the heaviest sessions (~1M tokens
     * computed in a half-life), so a step near its bound goes before almost any step that has just come, and the bound
     * is reached only behind steps that waited longer still.
     */
    static final int AGING_DOUBLINGS = 8;

    /** One waiting request, when it arrived, and its place in the aged order (lower first; newcomers' counts past the bound). */
    public record Entry<T>(T waiter, long enqueuedAtNanos, double priority, long seq) {
    }

    private final int maxLength;
    private final long timeoutNanos;
    private final long boundNanos;
    private static final Comparator<Entry<?>> AGED = Comparator.<Entry<?>>comparingDouble(Entry::priority).thenComparingLong(Entry::seq);
    private final TreeSet<Entry<T>> returning = new TreeSet<>(AGED);
    private final LinkedHashSet<Entry<T>> entries = new LinkedHashSet<>();
    private long seq;

    /** Steps of sessions in progress are bounded by the queue timeout too. */
    public AdmissionQueue(int maxLength, long timeoutNanos) {
        this(maxLength, timeoutNanos, timeoutNanos);
    }

    /**
     * @param timeoutNanos a newcomer waits at most this long
     * @param boundNanos   a step of a session in progress waits at most this long; it ages over this time
     */
    public AdmissionQueue(int maxLength, long timeoutNanos, long boundNanos) {
        if (maxLength < 0) {
            throw new IllegalArgumentException("queue length bound must be >= 0, got " + maxLength);
        }
        if (boundNanos <= 0) {
            throw new IllegalArgumentException("wait bound must be > 0, got " + boundNanos);
        }
        this.maxLength = maxLength;
        this.timeoutNanos = timeoutNanos;
        this.boundNanos = boundNanos;
    }

    /** Appends a newcomer, or returns empty when the queue is full. */
    public Optional<Entry<T>> offer(T waiter, long nowNanos) {
        return offer(waiter, nowNanos, false, 0);
    }

    /**
     * Adds to the lane of sessions in progress ({@code returningSession}) or the newcomers', aged from now with its
     * session's {@code serviceKey} (a newcomer's counts once it has waited the bound); empty when full.
     */
    public Optional<Entry<T>> offer(T waiter, long nowNanos, boolean returningSession, double serviceKey) {
        if (size() >= maxLength) {
            return Optional.empty();
        }
        Entry<T> e = new Entry<>(waiter, nowNanos, agedKey(serviceKey, nowNanos), seq++);
        (returningSession ? returning : entries).add(e);
        return Optional.of(e);
    }

    /**
     * The key that orders a step queued at {@code enqueuedAtNanos}: its service in doublings less what its wait makes up,
     * {@code serviceKey - AGING_DOUBLINGS * (now - enqueuedAt) / bound}. The {@code now} term is the same for everyone
     * waiting, so the order is fixed when the step is queued.
     */
    private double agedKey(double serviceKey, long enqueuedAtNanos) {
        return serviceKey + AGING_DOUBLINGS * ((double) enqueuedAtNanos / boundNanos);
    }

    /**
     * Everyone waiting at {@code nowNanos}, in the order they are admitted: sessions in progress and the newcomers that
     * have waited the bound by aged priority, then the other newcomers by arrival.
     */
    public List<Entry<T>> inOrder(long nowNanos) {
        List<Entry<T>> out = new ArrayList<>(size());
        out.addAll(returning);
        int merged = 0;
        for (Entry<T> e : entries) {
            // FIFO: arrival order is wait order, so the first one under the bound ends the overdue prefix.
            if (nowNanos - e.enqueuedAtNanos() < boundNanos) {
                break;
            }
            out.add(e);
            merged++;
        }
        if (merged > 0) {
            out.sort(AGED);
        }
        Iterator<Entry<T>> rest = entries.iterator();
        for (int i = 0; i < merged; i++) {
            rest.next();
        }
        rest.forEachRemaining(out::add);
        return out;
    }

    /**
     * Whether anyone waits that a step of a session in progress arriving now queues behind: a step of a session in
     * progress, or a newcomer that has waited the bound (never served, it is ahead of any served session's new step).
     */
    public boolean hasAheadOfReturning(long nowNanos) {
        return !returning.isEmpty() || (!entries.isEmpty() && nowNanos - entries.iterator().next().enqueuedAtNanos() >= boundNanos);
    }

    /** Takes an entry out (admitted, or its client left); false when it was not queued. */
    public boolean remove(Entry<T> e) {
        return returning.remove(e) || entries.remove(e);
    }

    /** Removes and returns, oldest first, the newcomers that have waited {@code queueTimeout} or longer. */
    public List<Entry<T>> removeExpired(long nowNanos) {
        List<Entry<T>> out = new ArrayList<>();
        Iterator<Entry<T>> it = entries.iterator();
        while (it.hasNext()) {
            Entry<T> e = it.next();
            // FIFO: arrival order is wait order, so the first one still in time ends the scan.
            if (nowNanos - e.enqueuedAtNanos() < timeoutNanos) {
                break;
            }
            it.remove();
            out.add(e);
        }
        return out;
    }

    /** The sessions in progress that have waited the bound or longer (still queued), in queue order. */
    public List<Entry<T>> overdue(long nowNanos) {
        List<Entry<T>> out = new ArrayList<>();
        for (Entry<T> e : returning) {
            if (nowNanos - e.enqueuedAtNanos() >= boundNanos) {
                out.add(e);
            }
        }
        return out;
    }

    public int size() {
        return returning.size() + entries.size();
    }

    /** Newcomers waiting (a newcomer that arrives now waits behind these and whoever of the sessions in progress comes). */
    public int newcomers() {
        return entries.size();
    }

    public boolean isEmpty() {
        return returning.isEmpty() && entries.isEmpty();
    }

    public boolean isFull() {
        return size() >= maxLength;
    }

    /** How long the longest waiting entry has waited, 0 when empty. */
    public long oldestWaitNanos(long nowNanos) {
        long oldest = Long.MAX_VALUE;
        for (Entry<T> e : returning) {
            oldest = Math.min(oldest, e.enqueuedAtNanos());
        }
        if (!entries.isEmpty()) {
            oldest = Math.min(oldest, entries.iterator().next().enqueuedAtNanos());
        }
        return oldest == Long.MAX_VALUE ? 0 : nowNanos - oldest;
    }

    public long timeoutNanos() {
        return timeoutNanos;
    }
}
