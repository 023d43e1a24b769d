package io.lmwarden.router.kvevents;

import java.util.Arrays;

/**
 * A map from 64-bit hashes to non-negative ints without boxing: open addressing with linear probing and
 * backward-shift deletion (no tombstones, so a map that churns through evictions does not degrade). 12 bytes per
 * bucket, at most 3/4 full. The keys are hashes already, but they are mixed again: a block hash's low bits need not
 * be uniform. Not thread-safe.
 */
final class LongIntMap {

    static final int ABSENT = -1;
    private static final int MIN_CAPACITY = 16;

    private long[] keys;
    private int[] values; // ABSENT marks an empty bucket
    private int size;
    private int mask;

    LongIntMap() {
        allocate(MIN_CAPACITY);
    }

    int size() {
        return size;
    }

    int get(long key) {
        for (int i = bucket(key); ; i = (i + 1) & mask) {
            int v = values[i];
            if (v == ABSENT) {
                return ABSENT;
            }
            if (keys[i] == key) {
                return v;
            }
        }
    }

    /** Maps {@code key} to {@code value} (≥ 0), replacing any earlier value. */
    void put(long key, int value) {
        if (value < 0) {
            throw new IllegalArgumentException("values are non-negative");
        }
        if ((size + 1) * 4L > values.length * 3L) {
            rehash(values.length * 2);
        }
        for (int i = bucket(key); ; i = (i + 1) & mask) {
            if (values[i] == ABSENT) {
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
        }
    }

    /** Removes {@code key}; returns its value, or {@link #ABSENT}. */
    int remove(long key) {
        int i = bucket(key);
        while (true) {
            int v = values[i];
            if (v == ABSENT) {
                return ABSENT;
            }
            if (keys[i] == key) {
                break;
            }
            i = (i + 1) & mask;
        }
        int removed = values[i];
        // Shift later members of the probe run back into the hole, so lookups never stop early.
        int hole = i;
        for (int j = (hole + 1) & mask; values[j] != ABSENT; j = (j + 1) & mask) {
            int home = bucket(keys[j]);
            boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        values[hole] = ABSENT;
        size--;
        if (values.length > MIN_CAPACITY && size * 8L < values.length) {
            rehash(values.length / 2);
        }
        return removed;
    }

    void clear() {
        allocate(MIN_CAPACITY);
    }

    /** Heap bytes held by the buckets. */
    long bytes() {
        return values.length * 12L;
    }

    private int bucket(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        values = new int[capacity];
        Arrays.fill(values, ABSENT);
        mask = capacity - 1;
        size = 0;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        int[] oldValues = values;
        allocate(capacity);
        for (int i = 0; i < oldValues.length; i++) {
            if (oldValues[i] != ABSENT) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }
}
