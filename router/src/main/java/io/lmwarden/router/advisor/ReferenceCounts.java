package io.lmwarden.router.advisor;

/**
 * A Fenwick tree over reference times: one mark at the time each key was last used, so the number of distinct keys
 * used since time t (its LRU stack distance) is a range sum in O(log n). Not thread-safe: one replay owns it.
 */
final class ReferenceCounts {

    private final int[] tree;

    ReferenceCounts(int times) {
        tree = new int[times + 1];
    }

    void add(int time, int delta) {
        for (int i = time + 1; i < tree.length; i += i & -i) {
            tree[i] += delta;
        }
    }

    /** Marks at times {@code 0..time} (0 when {@code time < 0}). */
    int upTo(int time) {
        int sum = 0;
        for (int i = time + 1; i > 0; i -= i & -i) {
            sum += tree[i];
        }
        return sum;
    }
}
