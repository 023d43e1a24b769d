package io.lmwarden.router.kvevents;

import java.util.Arrays;
import java.util.List;

/**
 * The blocks one engine (one replica, or one data-parallel rank) holds, by tier, built from its KV events. Two
 * tables: engine block hash → an entry with a reference count per medium (vLLM may announce a shared block again:
 * each store counts, each removal takes one back, a removal of a hash it never announced is ignored), and the
 * router's own key ({@link BlockKeys}) → how many engine entries hold it in each medium. A request asks by its own
 * keys; events arrive by engine hash. Only the events' group of full-attention layers is indexed (hybrid models send
 * one group per layer kind; a prefix hit needs the full-attention one).
 * <p>
 * 4.2 MB of heap for a replica holding 400k tokens at block 16 (25,000 blocks, with the eviction log's 1 MB;
 * measured by {@code bench}'s {@code KvIndexFootprint}). Not thread-safe: {@link ReplicaCacheView} guards it.
 */
final class ReplicaBlockIndex {

    private static final int MEDIA = Medium.values().length;
    private static final int GROUP_UNSET = Integer.MIN_VALUE;

    private final LongIntMap engineSlots = new LongIntMap();
    private final LongIntMap ownSlots = new LongIntMap();
    private final EvictionLog evictions;

    // Engine entries, by slot.
    private long[] engineHash = new long[0];
    private int[] engineOwn = new int[0];
    private int[] engineRefs = new int[0];
    private final SlotAllocator engineFree = new SlotAllocator();

    // Own keys, by slot.
    private long[] ownKey = new long[0];
    private int[] ownRefs = new int[0]; // engine entries holding the key, per medium
    private int[] ownEngines = new int[0]; // engine entries mapped to the key, in any medium
    private final SlotAllocator ownFree = new SlotAllocator();

    private final long[] residentByMedium = new long[MEDIA];
    private int blockSize;
    private int acceptedGroup = GROUP_UNSET;
    private long clearedAtMillis = -1;
    private final IndexCounters counters = new IndexCounters();

    ReplicaBlockIndex(int evictionLogCapacity) {
        evictions = new EvictionLog(evictionLogCapacity);
    }

    void apply(KvEvent event, long nowMillis) {
        if (event instanceof KvEvent.BlockStored s) {
            stored(s, nowMillis);
        } else if (event instanceof KvEvent.BlockRemoved r) {
            removed(r, nowMillis);
        } else {
            counters.clears++;
            reset(nowMillis);
        }
    }

    /** Forgets everything: the engine cleared its cache, or the view lost track of it. */
    void reset(long nowMillis) {
        engineSlots.clear();
        ownSlots.clear();
        engineHash = new long[0];
        engineOwn = new int[0];
        engineRefs = new int[0];
        engineFree.reset();
        ownKey = new long[0];
        ownRefs = new int[0];
        ownEngines = new int[0];
        ownFree.reset();
        Arrays.fill(residentByMedium, 0);
        clearedAtMillis = nowMillis;
    }

    private void stored(KvEvent.BlockStored s, long nowMillis) {
        if (!acceptsStoredGroup(s)) {
            counters.otherGroupEvents++;
            return;
        }
        counters.stores++;
        Medium medium = s.medium();
        long[] hashes = s.blockHashes();
        int[] tokens = s.tokenIds();
        if (tokens.length == 0 || s.blockSize() <= 0) {
            // A location-only announcement (the offloading connector's host copies): the blocks are known by hash.
            resolveKnown(hashes, medium);
            return;
        }
        if (blockSize == 0) {
            blockSize = s.blockSize();
        }
        if (s.blockSize() != blockSize || tokens.length != hashes.length * blockSize) {
            counters.unmappableStores++;
            resolveKnown(hashes, medium);
            return;
        }
        long parentKey;
        if (!s.hasParent()) {
            parentKey = s.firstBlockExtraKeys() != null ? BlockKeys.root(s.firstBlockExtraKeys())
                    : BlockKeys.root(s.loraName(), null);
        } else {
            int parentSlot = engineSlots.get(s.parentBlockHash());
            if (parentSlot == LongIntMap.ABSENT) {
                // The parent was stored before the view began (or in a gap): its key cannot be computed.
                counters.orphanStores++;
                resolveKnown(hashes, medium);
                return;
            }
            parentKey = ownKey[engineOwn[parentSlot]];
        }
        for (int b = 0; b < hashes.length; b++) {
            parentKey = BlockKeys.next(parentKey, tokens, b * blockSize, blockSize);
            addRef(hashes[b], parentKey, medium);
        }
    }

    private boolean acceptsStoredGroup(KvEvent.BlockStored s) {
        if (s.cacheSpecKind() != null && !s.cacheSpecKind().contains("full")) {
            return false;
        }
        if (acceptedGroup == GROUP_UNSET) {
            acceptedGroup = s.groupIdx();
        }
        return s.groupIdx() == acceptedGroup;
    }

    private void resolveKnown(long[] hashes, Medium medium) {
        for (long h : hashes) {
            int slot = engineSlots.get(h);
            if (slot == LongIntMap.ABSENT) {
                counters.unresolvedBlocks++;
            } else {
                addRef(h, ownKey[engineOwn[slot]], medium);
            }
        }
    }

    private void addRef(long hash, long key, Medium medium) {
        int slot = engineSlots.get(hash);
        if (slot == LongIntMap.ABSENT) {
            slot = newEngineSlot(hash, ownSlotFor(key));
        }
        int m = medium.ordinal();
        if (engineRefs[slot * MEDIA + m]++ == 0) {
            int own = engineOwn[slot];
            if (ownRefs[own * MEDIA + m]++ == 0) {
                residentByMedium[m]++;
            }
        }
    }

    private void removed(KvEvent.BlockRemoved r, long nowMillis) {
        if (acceptedGroup != GROUP_UNSET && r.groupIdx() != KvEvent.NO_GROUP && r.groupIdx() != acceptedGroup) {
            counters.otherGroupEvents++;
            return;
        }
        counters.removes++;
        int m = r.medium().ordinal();
        for (long hash : r.blockHashes()) {
            int slot = engineSlots.get(hash);
            if (slot == LongIntMap.ABSENT || engineRefs[slot * MEDIA + m] == 0) {
                counters.unknownRemovals++;
                continue;
            }
            if (--engineRefs[slot * MEDIA + m] > 0) {
                continue;
            }
            int own = engineOwn[slot];
            if (--ownRefs[own * MEDIA + m] == 0) {
                residentByMedium[m]--;
                if (r.medium() == Medium.GPU) {
                    evictions.record(ownKey[own], nowMillis);
                }
            }
            if (!anyRef(engineRefs, slot)) {
                engineSlots.remove(hash);
                engineFree.release(slot);
                if (--ownEngines[own] == 0) {
                    ownSlots.remove(ownKey[own]);
                    ownFree.release(own);
                }
            }
        }
    }

    CachedPrefix lookup(long[] keys) {
        int i = 0;
        int gpu = 0;
        int cpu = 0;
        int storage = 0;
        for (; i < keys.length; i++) {
            int own = ownSlots.get(keys[i]);
            if (own == LongIntMap.ABSENT || ownRefs[own * MEDIA + Medium.GPU.ordinal()] == 0) {
                break;
            }
            gpu++;
        }
        for (; i < keys.length; i++) {
            int own = ownSlots.get(keys[i]);
            if (own == LongIntMap.ABSENT) {
                break;
            }
            if (ownRefs[own * MEDIA + Medium.CPU.ordinal()] > 0) {
                cpu++;
            } else if (ownRefs[own * MEDIA + Medium.STORAGE.ordinal()] > 0) {
                storage++;
            } else {
                break;
            }
        }
        int firstMissing = i < keys.length ? i : -1;
        long evictedAt = firstMissing < 0 ? -1 : evictions.evictedAt(keys[firstMissing]);
        return new CachedPrefix(blockSize, keys.length, gpu, cpu, storage, firstMissing, evictedAt);
    }

    /** Whether the engine holds the block with this key in {@code medium}. */
    boolean holds(long key, Medium medium) {
        int own = ownSlots.get(key);
        return own != LongIntMap.ABSENT && ownRefs[own * MEDIA + medium.ordinal()] > 0;
    }

    long evictedAt(long key) {
        return evictions.evictedAt(key);
    }

    long clearedAtMillis() {
        return clearedAtMillis;
    }

    int blockSize() {
        return blockSize;
    }

    /** Distinct blocks the engine holds in {@code medium}, by the router's keys. */
    long residentBlocks(Medium medium) {
        return residentByMedium[medium.ordinal()];
    }

    int engineEntries() {
        return engineSlots.size();
    }

    IndexCounters counters() {
        return counters.copy();
    }

    /** Heap bytes held by the tables (arrays and buckets; the object headers around them are negligible). */
    long bytes() {
        return engineSlots.bytes() + ownSlots.bytes() + evictions.bytes()
                + engineHash.length * (8L + 4 + 4L * MEDIA) + ownKey.length * (8L + 4 + 4L * MEDIA);
    }

    private int newEngineSlot(long hash, int own) {
        int slot = engineFree.take();
        if (slot >= engineHash.length) {
            int cap = Math.max(64, engineHash.length * 2);
            engineHash = Arrays.copyOf(engineHash, cap);
            engineOwn = Arrays.copyOf(engineOwn, cap);
            engineRefs = Arrays.copyOf(engineRefs, cap * MEDIA);
        }
        engineHash[slot] = hash;
        engineOwn[slot] = own;
        Arrays.fill(engineRefs, slot * MEDIA, slot * MEDIA + MEDIA, 0);
        engineSlots.put(hash, slot);
        ownEngines[own]++;
        return slot;
    }

    private int ownSlotFor(long key) {
        int own = ownSlots.get(key);
        if (own != LongIntMap.ABSENT) {
            return own;
        }
        own = ownFree.take();
        if (own >= ownKey.length) {
            int cap = Math.max(64, ownKey.length * 2);
            ownKey = Arrays.copyOf(ownKey, cap);
            ownRefs = Arrays.copyOf(ownRefs, cap * MEDIA);
            ownEngines = Arrays.copyOf(ownEngines, cap);
        }
        ownKey[own] = key;
        Arrays.fill(ownRefs, own * MEDIA, own * MEDIA + MEDIA, 0);
        ownEngines[own] = 0;
        ownSlots.put(key, own);
        return own;
    }

    private static boolean anyRef(int[] refs, int slot) {
        for (int m = 0; m < MEDIA; m++) {
            if (refs[slot * MEDIA + m] > 0) {
                return true;
            }
        }
        return false;
    }

    /** Slot numbers: freed ones first, then the next unused. */
    private static final class SlotAllocator {
        private int[] free = new int[16];
        private int freeCount;
        private int next;

        int take() {
            return freeCount > 0 ? free[--freeCount] : next++;
        }

        void release(int slot) {
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, free.length * 2);
            }
            free[freeCount++] = slot;
        }

        void reset() {
            free = new int[16];
            freeCount = 0;
            next = 0;
        }
    }
}
