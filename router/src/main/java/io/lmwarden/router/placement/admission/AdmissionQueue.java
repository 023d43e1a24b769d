package io.lmwarden.router.placement.admission;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Requests waiting for admission, first come first served, bounded in length and in how long each
 * may wait. Not thread-safe: {@link AdmissionController} guards it.
 *
 * @param <T> what waits (the controller's waiter)
 */
public final class AdmissionQueue<T> {

    /** One waiting request and when it arrived. */
    public record Entry<T>(T waiter, long enqueuedAtNanos) {
    }

    private final int maxLength;
    private final long timeoutNanos;
    private final LinkedHashSet<Entry<T>> entries = new LinkedHashSet<>();

    public AdmissionQueue(int maxLength, long timeoutNanos) {
        if (maxLength < 0) {
            throw new IllegalArgumentException("queue length bound must be >= 0, got " + maxLength);
        }
        this.maxLength = maxLength;
        this.timeoutNanos = timeoutNanos;
    }

    /** Appends, or returns empty when the queue is full. */
    public Optional<Entry<T>> offer(T waiter, long nowNanos) {
        if (entries.size() >= maxLength) {
            return Optional.empty();
        }
        Entry<T> e = new Entry<>(waiter, nowNanos);
        entries.add(e);
        return Optional.of(e);
    }

    public Optional<Entry<T>> head() {
        return entries.isEmpty() ? Optional.empty() : Optional.of(entries.iterator().next());
    }

    /** Takes an entry out (admitted, or its client left); false when it was not queued. */
    public boolean remove(Entry<T> e) {
        return entries.remove(e);
    }

    /** Removes and returns, oldest first, the entries that have waited {@code queueTimeout} or longer. */
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

    public int size() {
        return entries.size();
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public boolean isFull() {
        return entries.size() >= maxLength;
    }

    /** How long the head has waited, 0 when empty. */
    public long oldestWaitNanos(long nowNanos) {
        return head().map(e -> nowNanos - e.enqueuedAtNanos()).orElse(0L);
    }

    public long timeoutNanos() {
        return timeoutNanos;
    }
}
