package io.lmwarden.router.placement.pins;


import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps (model key, session key) to the replica that holds the session's prefix (the model key is shared by the
 * names of one model: see {@code ReplicaPool.modelKey}). Bounded: beyond
 * {@code maxEntries} the least recently used entry goes; an entry idle longer than the timeout is
 * forgotten. Every operation is O(1) (expiry is amortised: it walks from the oldest entry and stops
 * at the first one still in use). One lock: the table is touched once per request. A router alone
 * uses it as its {@link SessionPins}; in a cluster it is each pod's local copy of the shared pins.
 */
public final class AffinityTable implements SessionPins {

    private static final char SEPARATOR = '\u0001';

    /** Mutable on purpose: touching an entry on every request must not allocate. */
    private static final class Entry {
        String replicaId;
        long lastUsedNanos;

        Entry(String replicaId, long lastUsedNanos) {
            this.replicaId = replicaId;
            this.lastUsedNanos = lastUsedNanos;
        }
    }

    private final int maxEntries;
    private final long idleTimeoutNanos;
    private final LinkedHashMap<String, Entry> entries;
    /**
     * Written under the table's lock, read without it: every placement reads every replica's count
     * (a snapshot of 64 replicas would otherwise take the lock 64 times per request).
     */
    private final Map<String, Integer> perReplica = new ConcurrentHashMap<>();

    public AffinityTable(int maxEntries, Duration idleTimeout) {
        this.maxEntries = maxEntries;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.entries = new LinkedHashMap<>(Math.min(maxEntries, 1 << 16), 0.75f, true);
    }

    static String key(String model, String sessionKey) {
        return model + SEPARATOR + sessionKey;
    }

    /** The session's replica if it has one and it has not gone idle; touches the entry. */
    @Override
    public synchronized Optional<String> lookup(String model, String sessionKey, long nowNanos) {
        String k = key(model, sessionKey);
        Entry e = entries.get(k);
        if (e == null) {
            return Optional.empty();
        }
        if (nowNanos - e.lastUsedNanos > idleTimeoutNanos) {
            entries.remove(k);
            decrement(e.replicaId);
            return Optional.empty();
        }
        e.lastUsedNanos = nowNanos;
        return Optional.of(e.replicaId);
    }

    /** Alone, nobody can win a race: pins {@code replicaId} and returns it, already complete. */
    @Override
    public synchronized CompletionStage<String> claim(String model, String sessionKey, Optional<String> previous, String replicaId,
                                                      long nowNanos) {
        pin(model, sessionKey, replicaId, nowNanos);
        return CompletableFuture.completedFuture(replicaId);
    }

    /** Drops the session's entry (another router's table forgot it). */
    public synchronized void forget(String model, String sessionKey) {
        Entry e = entries.remove(key(model, sessionKey));
        if (e != null) {
            decrement(e.replicaId);
        }
    }

    /** Points an existing entry elsewhere without counting it as used (another router moved the session). */
    public synchronized void repoint(String model, String sessionKey, String replicaId) {
        Entry e = entries.get(key(model, sessionKey));
        if (e != null && !e.replicaId.equals(replicaId)) {
            decrement(e.replicaId);
            increment(replicaId);
            e.replicaId = replicaId;
        }
    }

    /** Pins (or re-pins) the session to a replica. */
    @Override
    public synchronized void pin(String model, String sessionKey, String replicaId, long nowNanos) {
        String k = key(model, sessionKey);
        Entry e = entries.get(k);
        if (e != null) {
            if (!e.replicaId.equals(replicaId)) {
                decrement(e.replicaId);
                increment(replicaId);
                e.replicaId = replicaId;
            }
            e.lastUsedNanos = nowNanos;
            return;
        }
        entries.put(k, new Entry(replicaId, nowNanos));
        increment(replicaId);
        if (entries.size() > maxEntries) {
            Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
            Entry eldest = it.next().getValue();
            it.remove();
            decrement(eldest.replicaId);
        }
    }

    /** Forgets entries idle longer than the timeout; returns how many. */
    @Override
    public synchronized int expireIdle(long nowNanos) {
        int removed = 0;
        Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Entry e = it.next().getValue();
            if (nowNanos - e.lastUsedNanos <= idleTimeoutNanos) {
                break;
            }
            it.remove();
            decrement(e.replicaId);
            removed++;
        }
        return removed;
    }

    /** The replica left the pool or stopped being ready: its sessions have no home any more. Returns how many. */
    @Override
    public synchronized int release(String replicaId) {
        int removed = 0;
        Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            if (it.next().getValue().replicaId.equals(replicaId)) {
                it.remove();
                removed++;
            }
        }
        perReplica.remove(replicaId);
        return removed;
    }

    @Override
    public synchronized Optional<String> peek(String model, String sessionKey) {
        Entry e = entries.get(key(model, sessionKey));
        return e == null ? Optional.empty() : Optional.of(e.replicaId);
    }

    @Override
    public synchronized int size() {
        return entries.size();
    }

    /** Sessions pinned to one replica. */
    @Override
    public int sessionsOn(String replicaId) {
        return perReplica.getOrDefault(replicaId, 0);
    }

    @Override
    public Map<String, Integer> sessionsPerReplica() {
        return Map.copyOf(perReplica);
    }

    private void increment(String replicaId) {
        perReplica.merge(replicaId, 1, Integer::sum);
    }

    private void decrement(String replicaId) {
        perReplica.computeIfPresent(replicaId, (k, v) -> v <= 1 ? null : v - 1);
    }
}
