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
 * @param firstStep       the session's first step in the run: 1, or the step a steady-start session joined at (the
 *                        router first hears of the session there; a step after it is one of a session in progress)
 * @param adapter         the LoRA adapter the session runs on (what it sent as {@code model}), or null for the base model
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
        String sessionClass,
        int firstStep,
        String adapter) {

    /** A step of a session on the base model. */
    public StepRecord(int session, int step, long sentNanos, long firstTokenNanos, long endNanos, String replica, String decision,
                      int outputTokens, int promptTokens, int cachedTokens, int oracleTokens, Boolean stayed, boolean lastOfSession,
                      String error, long sessionStartNanos, long queueWaitNanos, boolean rejected, int router, String sessionClass,
                      int firstStep) {
        this(session, step, sentNanos, firstTokenNanos, endNanos, replica, decision, outputTokens, promptTokens, cachedTokens,
                oracleTokens, stayed, lastOfSession, error, sessionStartNanos, queueWaitNanos, rejected, router, sessionClass, firstStep,
                null);
    }

    public boolean ok() {
        return error == null;
    }

    /** A step after the session's first in the run: the router knows the session already. */
    public boolean inProgress() {
        return step > firstStep;
    }

    /** The session joined the run mid-life (steady start): its measured duration is a lower bound. */
    public boolean joined() {
        return firstStep > 1;
    }
}
