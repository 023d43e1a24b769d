package io.lmwarden.bench.trace;

import java.util.List;

/**
 * A conversation of a trace: its turns in order, or one request without a session id. The first turn starts at its
 * timestamp (0 without one); a later turn waits its {@code delay} after the previous turn ended, else starts at its
 * timestamp but not before the previous turn ended, else right after it.
 *
 * @param id null for a request of its own (sent without a session key)
 */
public record TraceSession(String id, List<TraceRequest> turns) {

    public TraceSession {
        turns = List.copyOf(turns);
    }

    /** When the first turn is due, trace milliseconds. */
    public double startMs() {
        TraceRequest first = turns.get(0);
        return first.hasTimestamp() ? first.timestampMs() : 0;
    }
}
