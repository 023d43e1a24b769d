package io.lmwarden.bench.trace;

import java.util.List;

/**
 * A trace loaded for replay: the sessions that begin within the replay's duration.
 *
 * @param skippedSessions sessions of the file that begin after the duration and are not played
 */
public record Trace(TraceReplay replay, List<TraceSession> sessions, int skippedSessions) {

    public Trace {
        sessions = List.copyOf(sessions);
        if (sessions.isEmpty()) {
            throw new IllegalArgumentException("no session of trace " + replay.file() + " begins within --duration");
        }
    }

    public static Trace load(TraceReplay replay) {
        List<TraceSession> all = TraceFile.read(replay.file());
        List<TraceSession> played = replay.duration() == null ? all
                : all.stream().filter(s -> replay.workloadNanos(s.startMs()) < replay.duration().toNanos()).toList();
        return new Trace(replay, played, all.size() - played.size());
    }

    /** How long the replay runs, workload nanoseconds: the duration, or until the last session's first turn is due. */
    public long lengthNanos() {
        if (replay.duration() != null) {
            return replay.duration().toNanos();
        }
        return sessions.stream().mapToLong(s -> replay.workloadNanos(s.startMs())).max().orElse(0);
    }

    /**
     * Tokens that are ever worth keeping: every distinct block the played sessions send, plus their outputs (a bound on
     * what a KV cache that never evicts a reusable block needs).
     */
    public long distinctTokens() {
        java.util.Set<Long> blocks = new java.util.HashSet<>();
        long outputs = 0;
        long unblocked = 0;
        for (TraceSession s : sessions) {
            for (TraceRequest r : s.turns()) {
                for (long id : r.hashIds()) {
                    blocks.add(id);
                }
                outputs += r.outputLength();
                unblocked += Math.max(0, r.inputLength() - (long) r.hashIds().length * replay.blockSize());
            }
        }
        return blocks.size() * (long) replay.blockSize() + outputs + unblocked;
    }

    public int requests() {
        return sessions.stream().mapToInt(s -> s.turns().size()).sum();
    }
}
