package io.lmwarden.router.kvevents;

/**
 * What a replica's index made of the events it applied. {@code orphanStores}: stores whose parent block the view
 * never saw (stored before it began, or in a gap), so their keys could not be computed; {@code unresolvedBlocks}:
 * blocks announced without tokens (host copies) whose hash the view does not know; {@code unmappableStores}: a block
 * size or token count that does not fit; {@code unknownRemovals}: removals of blocks the view did not hold there.
 */
public final class IndexCounters {
    long stores;
    long removes;
    long clears;
    long orphanStores;
    long unresolvedBlocks;
    long unmappableStores;
    long unknownRemovals;
    long otherGroupEvents;

    public long stores() {
        return stores;
    }

    public long removes() {
        return removes;
    }

    public long clears() {
        return clears;
    }

    public long orphanStores() {
        return orphanStores;
    }

    public long unresolvedBlocks() {
        return unresolvedBlocks;
    }

    public long unmappableStores() {
        return unmappableStores;
    }

    public long unknownRemovals() {
        return unknownRemovals;
    }

    public long otherGroupEvents() {
        return otherGroupEvents;
    }

    IndexCounters copy() {
        IndexCounters c = new IndexCounters();
        c.stores = stores;
        c.removes = removes;
        c.clears = clears;
        c.orphanStores = orphanStores;
        c.unresolvedBlocks = unresolvedBlocks;
        c.unmappableStores = unmappableStores;
        c.unknownRemovals = unknownRemovals;
        c.otherGroupEvents = otherGroupEvents;
        return c;
    }
}
