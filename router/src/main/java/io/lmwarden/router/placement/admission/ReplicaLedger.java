package io.lmwarden.router.placement.admission;

import java.util.HashMap;
import java.util.Map;

/**
 * The KV blocks the resident sessions of one replica hold, with a block that several sessions share
 * (same chained hash) counted once: reference counts per block hash, plus the sessions' private reply
 * blocks. Not thread-safe: {@link ResidencyTable} guards it.
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

    void remove(WorkingSet ws) {
        for (long h : ws.blockHashes()) {
            refs.computeIfPresent(h, (k, n) -> n <= 1 ? null : n - 1);
        }
        privateBlocks -= ws.privateBlocks();
    }
}
