package io.lmwarden.router.placement.admission;

import java.util.HashMap;
import java.util.Map;

/**
 * The KV blocks the resident sessions of one replica hold, with a block that several sessions share
 * (same chained hash) counted once: reference counts per block hash, plus the sessions' private reply
 * blocks. Not thread-safe: {@link KvLedger} keeps one per replica, under {@link ResidencyTable}'s lock.
 */
final class ReplicaLedger {

    private final Map<Long, Integer> refs = new HashMap<>();
    private long privateBlocks;

    long usedBlocks() {
        return refs.size() + privateBlocks;
    }

    boolean holds(long blockHash) {
        return refs.containsKey(blockHash);
    }

    /** Blocks the working set would add here: those no resident holds yet, plus its reply. */
    long extraBlocks(WorkingSet ws) {
        long extra = ws.privateBlocks();
        for (long h : ws.blockHashes()) {
            if (!refs.containsKey(h)) {
                extra++;
            }
        }
        return extra;
    }

    void add(WorkingSet ws) {
        for (long h : ws.blockHashes()) {
            refs.merge(h, 1, Integer::sum);
        }
        privateBlocks += ws.privateBlocks();
    }

    /**
     * A resident's next step here: the same counts as {@code remove(old)} then {@code add(now)}, but only
     * the blocks after the prefix both share are touched (a follow-up step re-sends its whole history,
     * so that is the new turn, not the whole conversation twice).
     */
    void replace(WorkingSet old, WorkingSet now) {
        long[] a = old.blockHashes();
        long[] b = now.blockHashes();
        int same = 0;
        int n = Math.min(a.length, b.length);
        while (same < n && a[same] == b[same]) {
            same++;
        }
        for (int i = same; i < a.length; i++) {
            refs.computeIfPresent(a[i], (k, c) -> c <= 1 ? null : c - 1);
        }
        for (int i = same; i < b.length; i++) {
            refs.merge(b[i], 1, Integer::sum);
        }
        privateBlocks += now.privateBlocks() - old.privateBlocks();
    }

    void remove(WorkingSet ws) {
        for (long h : ws.blockHashes()) {
            refs.computeIfPresent(h, (k, n) -> n <= 1 ? null : n - 1);
        }
        privateBlocks -= ws.privateBlocks();
    }
}
