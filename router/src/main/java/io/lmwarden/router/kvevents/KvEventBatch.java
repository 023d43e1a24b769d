package io.lmwarden.router.kvevents;

import java.util.List;

/**
 * One decoded payload. {@code readable} is false when the payload was not a batch at all (garbage, truncated
 * msgpack, a wrong shape); {@code skippedEvents} counts events inside a readable batch that were left out: an
 * unknown type, a field of the wrong type, an unknown medium.
 */
public record KvEventBatch(boolean readable, double timestamp, List<KvEvent> events, int dataParallelRank,
                           int skippedEvents) {

    public static final int NO_RANK = -1;

    static KvEventBatch unreadable() {
        return new KvEventBatch(false, 0, List.of(), NO_RANK, 0);
    }
}
