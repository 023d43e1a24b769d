package io.lmwarden.bench.run;

import java.util.concurrent.TimeUnit;

/**
 * Holds a stage's window open past its nominal end until it has measured at least {@code --stage-min-steps} steps,
 * so that what a run says about its steps (every router got some, none moved) does not depend on how fast the
 * machine is: on a busy machine a short stage may otherwise end before its steps do. A guard of
 * {@link #GUARD_STAGES} stage lengths ends a stage whose steps never come (the run then reports the steps it has).
 */
public final class StageHold {

    /** How many stage lengths a stage may run past its nominal end waiting for its steps. */
    public static final int GUARD_STAGES = 20;

    private static final long POLL_MILLIS = 20;

    private final StepLog log;
    private final int minSteps;

    StageHold(StepLog log, int minSteps) {
        this.log = log;
        this.minSteps = minSteps;
    }

    /**
     * Blocks (the orchestrating thread) until {@code minSteps} steps have ended since {@code startNanos}, or the guard
     * passes; returns how many had ended.
     */
    int await(long startNanos, long stageWallNanos) {
        long guard = System.nanoTime() + GUARD_STAGES * stageWallNanos;
        int ended;
        while ((ended = log.endedSince(startNanos)) < minSteps && System.nanoTime() < guard) {
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while a stage waited for its steps", e);
            }
        }
        return ended;
    }
}
