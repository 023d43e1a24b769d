package io.lmwarden.router.kvevents;

import java.util.List;

/** One event of a vLLM KV-event batch, as far as the router's view of the cache needs it. */
public sealed interface KvEvent {

    /** No group index on the wire (engines with one KV cache group send none, or {@code null}). */
    int NO_GROUP = -1;

    /**
     * Full blocks became resident on {@code medium}. {@code tokenIds} hold the blocks' tokens in order
     * ({@code blockHashes.length × blockSize} of them), or none: the offloading connector announces its host copies
     * without tokens unless it is self-describing. {@code firstBlockExtraKeys} are the block-0 extra keys that vLLM
     * mixes into the first block's hash (LoRA name, cache salt), as strings in wire order, or {@code null} when the
     * event carried no {@code extra_keys}.
     */
    record BlockStored(long[] blockHashes, boolean hasParent, long parentBlockHash, int[] tokenIds, int blockSize,
                       Medium medium, String loraName, List<String> firstBlockExtraKeys, int groupIdx,
                       String cacheSpecKind) implements KvEvent {
    }

    /** Blocks left {@code medium}. */
    record BlockRemoved(long[] blockHashes, Medium medium, int groupIdx) implements KvEvent {
    }

    /** The engine dropped its whole prefix cache (a reset, or a fresh start). */
    record AllBlocksCleared() implements KvEvent {
    }
}
