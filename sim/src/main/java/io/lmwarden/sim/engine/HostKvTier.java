package io.lmwarden.sim.engine;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The host-memory KV tier of one engine, as vLLM's native offloading ({@code OffloadingConnector} with the CPU
 * backend and its default LRU policy) keeps it: a fixed number of block slots keyed by block hash, filled by
 * write-through copies of completed prompt blocks, evicting the least recently used block that no load is reading.
 * Blocks are the GPU block size (vLLM's default {@code block_size_factor} of 1). Not thread-safe: the engine owns it.
 */
final class HostKvTier {
    private final int capacity;
    /** Block hash → pins (loads in flight reading it); iteration order is least recently used first. */
    private final LinkedHashMap<Long, int[]> blocks = new LinkedHashMap<>(16, 0.75f, false);
    private final Map<Long, Integer> pinnedBlocks = new HashMap<>();

    HostKvTier(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a host tier needs at least one block");
        }
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    int size() {
        return blocks.size();
    }

    boolean contains(long hash) {
        return blocks.containsKey(hash);
    }

    /** Blocks some load is reading now (vLLM counts them as the tier's "usage"; idle cached blocks are evictable). */
    int pinned() {
        return pinnedBlocks.size();
    }

    /** How many of {@code hashes[from..to)} are held, counting from {@code from} until the first miss. */
    int matchLength(long[] hashes, int from, int to) {
        int n = 0;
        for (int b = from; b < to && blocks.containsKey(hashes[b]); b++) {
            n++;
        }
        return n;
    }

    /**
     * Marks {@code hashes[0..to)} as recently used, the first block last, so that a shared prefix outlives the tails
     * that hang off it (vLLM's LRU manager touches in reverse order for the same reason).
     */
    void touch(long[] hashes, int to) {
        for (int b = to - 1; b >= 0; b--) {
            int[] pins = blocks.remove(hashes[b]);
            if (pins != null) {
                blocks.put(hashes[b], pins);
            }
        }
    }

    /**
     * Copies one block in (a no-op when it is already held). Returns false when every held block is pinned by a load,
     * so nothing can make room (vLLM then skips the store); evicted hashes are added to {@code evicted}.
     */
    boolean store(long hash, List<Long> evicted) {
        if (blocks.containsKey(hash)) {
            return true;
        }
        if (blocks.size() >= capacity && !evictOne(evicted)) {
            return false;
        }
        blocks.put(hash, new int[1]);
        return true;
    }

    /** Pins {@code hashes[from..to)} (all held) for a load, so eviction skips them until {@link #unpin}. */
    void pin(long[] hashes, int from, int to) {
        for (int b = from; b < to; b++) {
            int[] pins = blocks.get(hashes[b]);
            if (pins == null) {
                throw new IllegalStateException("pinning a block the host tier does not hold");
            }
            if (pins[0]++ == 0) {
                pinnedBlocks.put(hashes[b], 1);
            }
        }
    }

    void unpin(long[] hashes, int from, int to) {
        for (int b = from; b < to; b++) {
            int[] pins = blocks.get(hashes[b]);
            if (pins != null && pins[0] > 0 && --pins[0] == 0) {
                pinnedBlocks.remove(hashes[b]);
            }
        }
    }

    /** Drops every unpinned block (a prefix-cache reset); their hashes go to {@code removed}. */
    void clear(List<Long> removed) {
        for (Iterator<Map.Entry<Long, int[]>> it = blocks.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, int[]> e = it.next();
            if (e.getValue()[0] == 0) {
                removed.add(e.getKey());
                it.remove();
            }
        }
    }

    private boolean evictOne(List<Long> evicted) {
        for (Iterator<Map.Entry<Long, int[]>> it = blocks.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, int[]> e = it.next();
            if (e.getValue()[0] == 0) {
                evicted.add(e.getKey());
                it.remove();
                return true;
            }
        }
        return false;
    }
}
