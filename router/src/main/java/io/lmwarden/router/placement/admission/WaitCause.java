package io.lmwarden.router.placement.admission;

/**
 * What a queued step waited behind, in the queue's own terms: the order (newcomers first come first served, sessions
 * in progress by aged attained service), backfill (a step waiting for its warm home while those behind it take room
 * elsewhere), revocation (paused residents likely to return keep their room), or a budget full of running steps.
 */
public enum WaitCause {
    /** Newcomers ahead of it: the first that must wait ends the newcomers' scan, or holds the room it wants. */
    NEWCOMERS_AHEAD("newcomersAhead"),
    /** Steps of sessions in progress ahead of it (less served, or waiting longer) hold the room it wants. */
    SESSIONS_AHEAD("sessionsInProgressAhead"),
    /** Its home holds its prefix: it waits for room there while the queue backfills others onto replicas with room. */
    WARM_HOME("warmHomeBackfill"),
    /** The room it wants is held by paused residents likely to return within the break-even: not revoked. */
    PAUSED_RESIDENTS("pausedResidentsNotRevoked"),
    /** The budget it wants is held by residents with steps running: nothing to revoke. */
    RUNNING("runningSteps");

    private final String label;

    WaitCause(String label) {
        this.label = label;
    }

    /** Its name in {@code /api/replicas} and the metric's {@code cause} tag. */
    public String label() {
        return label;
    }
}
