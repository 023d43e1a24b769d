package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Requests waiting for admission, first come first served, bounded in length and in how long each
 * may wait. Two lanes: sessions interrupted mid-way (they lost their residency while pausing) go
 * before newcomers, each lane in arrival order. Not thread-safe: {@link AdmissionController} guards it.
 *
 * @param <T> what waits (the controller's waiter)
 */
public final class AdmissionQueue<T> {

    /** One waiting request and when it arrived. */
    public record Entry<T>(T waiter, long enqueuedAtNanos) {
    }

    private final int maxLength;
    private final long timeoutNanos;
    private final LinkedHashSet<Entry<T>> returning = new LinkedHashSet<>();
    private final LinkedHashSet<Entry<T>> entries = new LinkedHashSet<>();

    public AdmissionQueue(int maxLength, long timeoutNanos) {
        if (maxLength < 0) {
            throw new IllegalArgumentException("queue length bound must be >= 0, got " + maxLength);
        }
        this.maxLength = maxLength;
        this.timeoutNanos = timeoutNanos;
    }

    /** Appends a newcomer, or returns empty when the queue is full. */
    public Optional<Entry<T>> offer(T waiter, long nowNanos) {
        return offer(waiter, nowNanos, false);
    }

    /** Appends to the interrupted sessions' lane ({@code returning}) or the newcomers' lane; empty when full. */
    public Optional<Entry<T>> offer(T waiter, long nowNanos, boolean returningSession) {
        if (size() >= maxLength) {
            return Optional.empty();
        }
        Entry<T> e = new Entry<>(waiter, nowNanos);
        (returningSession ? returning : entries).add(e);
        return Optional.of(e);
    }

    /** The next to admit: the oldest interrupted session, else the oldest newcomer. */
    public Optional<Entry<T>> head() {
        if (!returning.isEmpty()) {
            return Optional.of(returning.iterator().next());
        }
        return entries.isEmpty() ? Optional.empty() : Optional.of(entries.iterator().next());
    }

    /** Whether interrupted sessions are waiting (a returning session queues behind those only). */
    public boolean hasReturning() {
        return !returning.isEmpty();
    }

    /** Takes an entry out (admitted, or its client left); false when it was not queued. */
    public boolean remove(Entry<T> e) {
        return returning.remove(e) || entries.remove(e);
    }

    /** Removes and returns, oldest first per lane, the entries that have waited {@code queueTimeout} or longer. */
    public List<Entry<T>> removeExpired(long nowNanos) {
        List<Entry<T>> out = new ArrayList<>();
        removeExpired(returning, nowNanos, out);
        removeExpired(entries, nowNanos, out);
        return out;
    }

    private void removeExpired(LinkedHashSet<Entry<T>> lane, long nowNanos, List<Entry<T>> out) {
        Iterator<Entry<T>> it = lane.iterator();
        while (it.hasNext()) {
            Entry<T> e = it.next();
            // FIFO: arrival order is wait order, so the first one still in time ends the scan.
            if (nowNanos - e.enqueuedAtNanos() < timeoutNanos) {
                break;
            }
            it.remove();
            out.add(e);
        }
    }

    public int size() {
        return returning.size() + entries.size();
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
        if (!returning.isEmpty()) {
            oldest = returning.iterator().next().enqueuedAtNanos();
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
