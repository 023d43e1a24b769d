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
 * less service (arrival order among equals); newcomers first come first served. A newcomer waits at most the queue
 * timeout; a step of a session in progress at most the bound, and is never turned away ({@link #overdue} says who has
 * waited that long, for the controller to admit). Not thread-safe: {@link AdmissionController} guards it.
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

    /** One waiting request, when it arrived, and its place in its lane (lower first). */
    public record Entry<T>(T waiter, long enqueuedAtNanos, double priority, long seq) {
    }

    private final int maxLength;
    private final long timeoutNanos;
    private final long boundNanos;
    private final TreeSet<Entry<T>> returning = new TreeSet<>(
            Comparator.<Entry<T>>comparingDouble(Entry::priority).thenComparingLong(Entry::seq));
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
     * Adds to the lane of sessions in progress ({@code returningSession}, its session's {@code serviceKey}) or the
     * newcomers'; empty when full.
     */
    public Optional<Entry<T>> offer(T waiter, long nowNanos, boolean returningSession, double serviceKey) {
        if (size() >= maxLength) {
            return Optional.empty();
        }
        Entry<T> e = new Entry<>(waiter, nowNanos, returningSession ? agedKey(serviceKey, nowNanos) : 0, seq++);
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

    /** Everyone waiting, in the order they are admitted: sessions in progress by priority, then newcomers by arrival. */
    public List<Entry<T>> inOrder() {
        List<Entry<T>> out = new ArrayList<>(size());
        out.addAll(returning);
        out.addAll(entries);
        return out;
    }

    /** Whether sessions in progress are waiting (a returning session queues behind those only). */
    public boolean hasReturning() {
        return !returning.isEmpty();
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
