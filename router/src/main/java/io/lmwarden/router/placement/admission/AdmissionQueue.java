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
 * the least served session first (least attained service, {@link AttainedService#orderKey}; arrival order among
 * equals); newcomers first come first served. A newcomer waits at most the queue timeout; a session in progress is
 * never turned away ({@link #overdue} says who has waited that long, for the controller to admit). Not thread-safe:
 * {@link AdmissionController} guards it.
 *
 * @param <T> what waits (the controller's waiter)
 */
public final class AdmissionQueue<T> {

    /** One waiting request, when it arrived, and its place in its lane (lower first). */
    public record Entry<T>(T waiter, long enqueuedAtNanos, double priority, long seq) {
    }

    private final int maxLength;
    private final long timeoutNanos;
    private final TreeSet<Entry<T>> returning = new TreeSet<>(
            Comparator.<Entry<T>>comparingDouble(Entry::priority).thenComparingLong(Entry::seq));
    private final LinkedHashSet<Entry<T>> entries = new LinkedHashSet<>();
    private long seq;

    public AdmissionQueue(int maxLength, long timeoutNanos) {
        if (maxLength < 0) {
            throw new IllegalArgumentException("queue length bound must be >= 0, got " + maxLength);
        }
        this.maxLength = maxLength;
        this.timeoutNanos = timeoutNanos;
    }

    /** Appends a newcomer, or returns empty when the queue is full. */
    public Optional<Entry<T>> offer(T waiter, long nowNanos) {
        return offer(waiter, nowNanos, false, 0);
    }

    /** Adds to the lane of sessions in progress ({@code returningSession}, at {@code priority}) or the newcomers'; empty when full. */
    public Optional<Entry<T>> offer(T waiter, long nowNanos, boolean returningSession, double priority) {
        if (size() >= maxLength) {
            return Optional.empty();
        }
        Entry<T> e = new Entry<>(waiter, nowNanos, returningSession ? priority : 0, seq++);
        (returningSession ? returning : entries).add(e);
        return Optional.of(e);
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

    /** The sessions in progress that have waited {@code queueTimeout} or longer (still queued). */
    public List<Entry<T>> overdue(long nowNanos) {
        List<Entry<T>> out = new ArrayList<>();
        for (Entry<T> e : returning) {
            if (nowNanos - e.enqueuedAtNanos() >= timeoutNanos) {
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
