package io.lmwarden.router.kvevents;

/**
 * When blocks last left a replica's GPU cache, for the latest {@code capacity} departures: what the cache-miss
 * diagnostics need to say "evicted at T" instead of guessing. A ring of keys and times; a key that leaves again moves
 * to the front. Not thread-safe.
 */
final class EvictionLog {

    private final long[] keys;
    private final long[] times;
    private final LongIntMap positions = new LongIntMap();
    private int head;

    EvictionLog(int capacity) {
        keys = new long[capacity];
        times = new long[capacity];
        java.util.Arrays.fill(times, -1); // -1: the ring slot belongs to no key
    }

    void record(long key, long epochMillis) {
        if (keys.length == 0) {
            return;
        }
        int old = positions.remove(key);
        if (old != LongIntMap.ABSENT) {
            times[old] = -1; // the ring slot stays, but no longer belongs to the key
        }
        if (times[head] >= 0 && positions.get(keys[head]) == head) {
            positions.remove(keys[head]);
        }
        keys[head] = key;
        times[head] = epochMillis;
        positions.put(key, head);
        head = (head + 1) % keys.length;
    }

    /** When {@code key} last left the GPU, or -1 when it is not among the latest departures. */
    long evictedAt(long key) {
        int at = positions.get(key);
        return at == LongIntMap.ABSENT ? -1 : times[at];
    }

    int size() {
        return positions.size();
    }

    long bytes() {
        return keys.length * 16L + positions.bytes();
    }
}
