package io.lmwarden.bench.run;

/**
 * One finished step (request) of a session, as the measurement needs it; times are wall-clock nanos.
 *
 * @param stayed          for follow-up steps: whether it went to the replica of the session's previous
 *                        step; null for first steps or when the target does not name replicas
 * @param promptTokens    engine-reported prompt tokens, else the 4-chars-per-token estimate
 * @param cachedTokens    engine-reported prefix-cache tokens for this request, or -1
 * @param oracleTokens    prompt tokens perfect placement without eviction could have served from cache
 * @param lastOfSession   this step completed the session
 * @param sessionStartNanos when the session's first step was sent (wall clock)
 * @param queueWaitNanos  time the router's admission queue held this step (0 when it was not queued)
 * @param rejected        the router turned the step away as overloaded (429 / 529)
 * @param router          which of the target's routers the step was sent to (0-based; 0 with one router)
 * @param sessionClass    name of the session's class in the workload ("" for the flag shorthand)
 */
public record StepRecord(
        int session,
        int step,
        long sentNanos,
        long firstTokenNanos,
        long endNanos,
        String replica,
        String decision,
        int outputTokens,
        int promptTokens,
        int cachedTokens,
        int oracleTokens,
        Boolean stayed,
        boolean lastOfSession,
        String error,
        long sessionStartNanos,
        long queueWaitNanos,
        boolean rejected,
        int router,
        String sessionClass) {

    /** A step of the flag shorthand's one class, sent to the target's only (or first) router. */
    public StepRecord(int session, int step, long sentNanos, long firstTokenNanos, long endNanos, String replica, String decision,
                      int outputTokens, int promptTokens, int cachedTokens, int oracleTokens, Boolean stayed, boolean lastOfSession,
                      String error, long sessionStartNanos, long queueWaitNanos, boolean rejected) {
        this(session, step, sentNanos, firstTokenNanos, endNanos, replica, decision, outputTokens, promptTokens, cachedTokens,
                oracleTokens, stayed, lastOfSession, error, sessionStartNanos, queueWaitNanos, rejected, 0, "");
    }

    /** A step of a workload class, sent to the target's only (or first) router. */
    public StepRecord(int session, int step, long sentNanos, long firstTokenNanos, long endNanos, String replica, String decision,
                      int outputTokens, int promptTokens, int cachedTokens, int oracleTokens, Boolean stayed, boolean lastOfSession,
                      String error, long sessionStartNanos, long queueWaitNanos, boolean rejected, String sessionClass) {
        this(session, step, sentNanos, firstTokenNanos, endNanos, replica, decision, outputTokens, promptTokens, cachedTokens,
                oracleTokens, stayed, lastOfSession, error, sessionStartNanos, queueWaitNanos, rejected, 0, sessionClass);
    }

    public boolean ok() {
        return error == null;
    }
}
