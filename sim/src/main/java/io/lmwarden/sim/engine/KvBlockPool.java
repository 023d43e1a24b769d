package io.lmwarden.sim.engine;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * The KV cache as vLLM's block pool models it: a fixed number of blocks, reference counts, a map from
 * block hash to cached block, and a free queue in LRU order. Freed blocks keep their hash and can be hit
 * again until allocation evicts them from the head of the queue. Not thread-safe: the engine owns it.
 */
final class KvBlockPool {
    private static final int NONE = -1;

    private final int numBlocks;
    private final long[] hash;
    private final boolean[] hashed;
    private final int[] refCount;
    private final int[] prev;
    private final int[] next;
    private final boolean[] inFreeQueue;
    private final Map<Long, Integer> cached = new HashMap<>();
    /** Told each hash that allocation evicts (the engine turns them into vLLM's BlockRemoved events). */
    private final LongConsumer onEvict;
    private int head = NONE;
    private int tail = NONE;
    private int freeCount;

    KvBlockPool(int numBlocks, LongConsumer onEvict) {
        this.numBlocks = numBlocks;
        this.onEvict = onEvict;
        hash = new long[numBlocks];
        hashed = new boolean[numBlocks];
        refCount = new int[numBlocks];
        prev = new int[numBlocks];
        next = new int[numBlocks];
        inFreeQueue = new boolean[numBlocks];
        for (int b = 0; b < numBlocks; b++) {
            append(b);
        }
    }

    int freeBlocks() {
        return freeCount;
    }

    int usedBlocks() {
        return numBlocks - freeCount;
    }

    double usage() {
        return (double) usedBlocks() / numBlocks;
    }

    /** The cached block holding {@code blockHash}, or -1. */
    int lookup(long blockHash) {
        Integer b = cached.get(blockHash);
        return b == null ? NONE : b;
    }

    /** True when nobody references the block (it sits in the free queue, maybe still cached). */
    boolean isFree(int block) {
        return refCount[block] == 0;
    }

    /** Takes a reference on a cached block (removing it from the free queue when it was free). */
    void touch(int block) {
        if (refCount[block] == 0 && inFreeQueue[block]) {
            unlink(block);
        }
        refCount[block]++;
    }

    /** Pops the least recently used free block, evicting its cached hash. Caller checks {@link #freeBlocks()}. */
    int allocate() {
        int b = head;
        if (b == NONE) {
            throw new IllegalStateException("no free KV block");
        }
        unlink(b);
        if (hashed[b]) {
            cached.remove(hash[b], b);
            hashed[b] = false;
            onEvict.accept(hash[b]);
        }
        refCount[b] = 1;
        return b;
    }

    /**
     * Registers a full block's hash so later requests can hit it (first block with a hash wins). True when this block
     * now holds the hash, false when it already did or another block holds it.
     */
    boolean cache(int block, long blockHash) {
        if (hashed[block]) {
            return false;
        }
        if (cached.putIfAbsent(blockHash, block) == null) {
            hash[block] = blockHash;
            hashed[block] = true;
            return true;
        }
        return false;
    }

    /**
     * vLLM's reset_prefix_cache: forgets every cached hash, only when no block is in use (vLLM refuses otherwise).
     * True when the cache was reset.
     */
    boolean resetPrefixCache() {
        if (freeCount != numBlocks) {
            return false;
        }
        cached.clear();
        java.util.Arrays.fill(hashed, false);
        return true;
    }

    /** Drops one reference; blocks nobody references go to the tail of the free queue (evicted last). */
    void release(int block) {
        if (--refCount[block] == 0) {
            append(block);
        }
    }

    private void append(int b) {
        prev[b] = tail;
        next[b] = NONE;
        if (tail != NONE) {
            next[tail] = b;
        } else {
            head = b;
        }
        tail = b;
        inFreeQueue[b] = true;
        freeCount++;
    }

    private void unlink(int b) {
        if (prev[b] != NONE) {
            next[prev[b]] = next[b];
        } else {
            head = next[b];
        }
        if (next[b] != NONE) {
            prev[next[b]] = prev[b];
        } else {
            tail = prev[b];
        }
        inFreeQueue[b] = false;
        freeCount--;
    }
}
