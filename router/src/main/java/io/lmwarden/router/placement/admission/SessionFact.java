package io.lmwarden.router.placement.admission;

import java.util.Comparator;

/**
 * What admission knows of one session, as it travels between the routers of a cluster so that a step judged by any
 * of them sees the same pause and the same previous prompt as one router would: how many steps it has ended, its last
 * step's replica, tokens (prompt plus output) and end, its pause history in the summary {@link ReturnTimes} keeps
 * (count, mean and M2 of ln(pause in nanoseconds), the last pause), and its attained service. Times are wall-clock
 * epoch nanoseconds ({@link EpochClock}), since each router's {@code nanoTime} is its own.
 *
 * <p>Two routers may write one session's fact at once (steps of one session in flight on both). The facts are never
 * blended: the one that saw more steps wins, then the later end, then (a tie of both) the larger of the two in a
 * fixed order of the remaining fields, so that every member, whatever order it hears the writes in, keeps the same one
 * ({@link #merge}: commutative, associative, idempotent). The loser's pause is lost from the session's history.
 *
 * @param lastReplica the replica its last served step ran on; empty when none was served yet
 * @param lastTokens  that step's prompt plus output tokens (what the next step's prompt should find cached)
 */
public record SessionFact(String session, long steps, String lastReplica, long lastTokens, long lastEndEpochNanos,
                          int pauses, double lnPauseMean, double lnPauseM2, long lastPauseNanos,
                          double serviceTokens, long serviceAtEpochNanos) {

    private static final Comparator<SessionFact> ORDER = Comparator.comparingLong(SessionFact::steps)
            .thenComparingLong(SessionFact::lastEndEpochNanos)
            .thenComparingInt(SessionFact::pauses)
            .thenComparingLong(SessionFact::lastPauseNanos)
            .thenComparingDouble(SessionFact::lnPauseMean)
            .thenComparingDouble(SessionFact::lnPauseM2)
            .thenComparing(SessionFact::lastReplica)
            .thenComparingLong(SessionFact::lastTokens)
            .thenComparingDouble(SessionFact::serviceTokens)
            .thenComparingLong(SessionFact::serviceAtEpochNanos);

    public SessionFact {
        lastReplica = lastReplica == null ? "" : lastReplica;
    }

    /** The fact every member keeps of two written for one session. */
    public static SessionFact merge(SessionFact a, SessionFact b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return ORDER.compare(a, b) >= 0 ? a : b;
    }

    /** Whether this fact knows the session further than {@code steps} ended steps (another router served it since). */
    public boolean aheadOf(long steps) {
        return this.steps > steps;
    }
}
