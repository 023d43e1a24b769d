package io.lmwarden.bench.report;

import java.util.List;

/**
 * A stage seen over time, for runs whose pool changes under the load (issue 26's Day-2 operations): what the pool's
 * operations did and when, the stage cut into windows of workload time, and the figures the goals are stated in. All
 * times are workload seconds from the variant's start (the clock scheduled faults use).
 *
 * @param windowSeconds the length of each window
 * @param phases        what the operations did, in order
 * @param windows       the stage's measurement window cut into windows (the last may be shorter)
 * @param figures       the goal figures, from the phases and the steps
 * @param overrun       how far the stage ran past its nominal end while its scheduled faults finished
 */
public record Timeline(double windowSeconds, List<Phase> phases, List<Window> windows, Figures figures, Overrun overrun) {

    public static final Timeline NONE = new Timeline(0, List.of(), List.of(), null, Overrun.NONE);

    public Timeline(double windowSeconds, List<Phase> phases, List<Window> windows, Figures figures) {
        this(windowSeconds, phases, windows, figures, Overrun.NONE);
    }

    public Timeline {
        phases = List.copyOf(phases);
        windows = List.copyOf(windows);
        java.util.Objects.requireNonNull(overrun, "overrun");
    }

    /** The same timeline, of a stage that ran on past its nominal end. */
    public Timeline withOverrun(Overrun o) {
        return new Timeline(windowSeconds, phases, windows, figures, o);
    }

    /**
     * A stage does not end under a scheduled fault that is still running (a rolling upgrade, a router restart): it waits
     * for the fault to finish, so its figures describe the whole operation; the wait is reported, not hidden.
     *
     * @param seconds      workload seconds the stage ran past its nominal end (its figures include them)
     * @param stillRunning faults still running when the bench's hang guard ended the wait anyway (normally none)
     */
    public record Overrun(double seconds, List<String> stillRunning) {
        public static final Overrun NONE = new Overrun(0, List.of());

        public Overrun {
            stillRunning = List.copyOf(stillRunning);
        }

        /** Whether the stage did run on (a tenth of a workload second of scheduling noise is not an overrun). */
        public boolean happened() {
            return seconds >= 0.1 || !stillRunning.isEmpty();
        }
    }

    public boolean present() {
        return figures != null;
    }

    /** One phase of an operation: a replica drained, stopped, started, ready; a router out of rotation, back. */
    public record Phase(double atSeconds, String subject, String phase, String detail) {
    }

    /**
     * The steps that ended in one window.
     *
     * @param outputTokensPerMin  output tokens of the window's successful steps, per minute of the window
     * @param cachedPct           cached share of their prompt tokens (the engines' per-request usage), percent
     * @param lostBeforeFirstByte failed steps that never got a first token (refused, HTTP error, rejected, no tokens)
     * @param cutStreams          failed steps whose stream had started: cut mid-stream
     * @param queued              steps the router's queue held
     * @param queueWaitP95        p95 of every step's wait in the router's queue (0 for a step it did not hold), seconds;
     *                            NaN without steps
     * @param moves               follow-ups that ran on another replica than the session's step before
     * @param stepsByReplica      successful steps per replica id: a replaced or added replica serving again
     */
    public record Window(double fromSeconds, double toSeconds, int steps, double outputTokensPerMin, double cachedPct,
                         int lostBeforeFirstByte, int cutStreams, int queued, double queueWaitP95, int moves,
                         java.util.Map<String, Integer> stepsByReplica) {
        public Window {
            stepsByReplica = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(stepsByReplica));
        }

        /** "sim-0 3, sim-1 5", or "–". */
        public String describeReplicas() {
            return stepsByReplica.isEmpty() ? "–" : String.join(", ", stepsByReplica.entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue()).toList());
        }
    }

    /**
     * What issue 26's goals are stated in. {@code operationStart}: the first operation's first phase;
     * {@code lastReady}: the last replica or router back (ready in the router's view, or back in rotation). Before = the
     * measurement window's start to the operation's start. NaN where the stage has no such moment or no steps.
     *
     * @param lostBeforeFirstByte   over the stage: failed steps that never got a first token
     * @param cutStreams            over the stage: failed steps whose stream had started
     * @param operationEnd          when the last operation ended (its last replica ready, or gone)
     * @param tokensPerMinBefore    output tokens/min before the operation started
     * @param tokensPerMinDuring    from its start to the last Ready
     * @param hitPctBefore          cached share of prompt tokens before it
     * @param hitPctAfter           in the {@code afterSeconds} after the last Ready
     * @param afterSeconds          that span (2 minutes, or less when the stage ends sooner)
     * @param queueWaitP95Before    queue wait p95 before it
     * @param queueWaitP95NextStage queue wait p95 from the last Ready to one default stage (3 minutes) later
     * @param queueWaitP95Later     from then to the end of the window
     */
    public record Figures(int lostBeforeFirstByte, int cutStreams, double operationStart, double operationEnd, double lastReady,
                          double tokensPerMinBefore, double tokensPerMinDuring, double hitPctBefore, double hitPctAfter,
                          double afterSeconds, double queueWaitP95Before, double queueWaitP95NextStage, double queueWaitP95Later) {

        /** Tokens/min during the operation as a share of before (issue 26: at least 0.7 for a rolling upgrade). */
        public double tokensRatio() {
            return tokensPerMinDuring / tokensPerMinBefore;
        }

        /** Hit rate after the last Ready minus before, points (issue 26: back within 5 points in 2 minutes). */
        public double hitPctChange() {
            return hitPctAfter - hitPctBefore;
        }
    }
}
