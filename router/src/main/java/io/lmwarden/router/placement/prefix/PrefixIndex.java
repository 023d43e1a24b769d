package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.session.PromptShape;

import java.util.LinkedHashMap;

/**
 * An approximate copy of one replica's prefix cache: the chained block hashes of the prompts the
 * router sent there, evicted least recently used once they exceed the replica's KV capacity. It
 * answers "how much of this prompt does that replica probably still hold" without asking it.
 */
public final class PrefixIndex {

    private final LinkedHashMap<Long, Boolean> blocks = new LinkedHashMap<>(4096, 0.75f, true);
    private int capacityBlocks;

    public PrefixIndex(int capacityBlocks) {
        this.capacityBlocks = Math.max(1, capacityBlocks);
    }

    /** The KV capacity follows the engine's {@code cache_config_info} once it is known. */
    public synchronized void setCapacityBlocks(int capacity) {
        this.capacityBlocks = Math.max(1, capacity);
        trim();
    }

    public synchronized int capacityBlocks() {
        return capacityBlocks;
    }

    /** Leading blocks of the prompt held here. Chained hashes make "block i held" imply the prefix up to i. */
    public synchronized int heldBlocks(PromptShape shape) {
        long[] h = shape.blockHashes();
        int i = 0;
        while (i < h.length && blocks.containsKey(h[i])) {
            i++;
        }
        return i;
    }

    /**
     * The prompt was sent here: after its prefill the replica holds all its blocks. They are touched
     * tail first, so that within one prompt the prefix is the most recently used and evicted last:
     * vLLM frees a finished request's blocks in reverse order for the same reason, and a prefix index
     * that lost block 0 first would call a mostly cached conversation cold.
     */
    public synchronized void insert(PromptShape shape) {
        long[] h = shape.blockHashes();
        for (int i = h.length - 1; i >= 0; i--) {
            blocks.put(h[i], Boolean.TRUE);
        }
        trim();
    }

    public synchronized int size() {
        return blocks.size();
    }

    private void trim() {
        var it = blocks.entrySet().iterator();
        while (blocks.size() > capacityBlocks && it.hasNext()) {
            it.next();
            it.remove();
        }
    }
}
