package io.lmwarden.router.placement.admission;

/**
 * The {@code priority} the router gives a request for vLLM's priority scheduler (lower runs first; ties by arrival),
 * so that the engine's own waiting queue and its choice of whom to preempt follow the same fairness as the router's
 * queue: least attained service first, and a step that waited gains.
 *
 * <p>The value is the session's decayed attained service in doublings of {@value #UNIT_TOKENS} tokens (0 below
 * that: a newcomer or a light session), less one for every service half-life the step waited in the router's
 * queue. Waiting one half-life thus counts as the service halving, as it would have by decay had the session not been
 * served meanwhile. Integers, as vLLM's field is, and coarse on purpose: steps of sessions of like service tie and
 * keep their arrival order.
 */
public final class EnginePriority {

    /** Service below this is "none yet" (about one agent step's new tokens). */
    static final double UNIT_TOKENS = 4096;
    private static final int BOUND = 1000;

    private EnginePriority() {
    }

    /**
     * @param serviceTokens  the session's decayed attained service now
     * @param waitedNanos    how long the step waited in the router's queue
     * @param halfLifeNanos  the service half-life, on the same clock as the wait
     */
    public static int of(double serviceTokens, long waitedNanos, long halfLifeNanos) {
        int served = (int) Math.floor(Math.log1p(Math.max(0, serviceTokens) / UNIT_TOKENS) / Math.log(2));
        long aged = Math.max(0, waitedNanos) / Math.max(1, halfLifeNanos);
        return (int) Math.max(-BOUND, Math.min(BOUND, served - aged));
    }
}
