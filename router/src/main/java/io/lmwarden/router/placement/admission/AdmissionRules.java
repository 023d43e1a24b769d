package io.lmwarden.router.placement.admission;

import io.lmwarden.router.config.AdmissionSettings;

import java.time.Duration;

/**
 * The admission settings as the controller applies them: every duration on the router's wall clock (a
 * simulator running K times faster divides the workload times by K). The values were checked when the
 * settings were read ({@link AdmissionSettings}).
 *
 * @param kvBudget              share of each replica's KV capacity the resident working sets may fill
 * @param pausePriorNanos       the pause the return-time estimate assumes before it has seen any (its prior's median)
 * @param residencySliceNanos   a session resident this long yields its residency at its next pause when others wait
 * @param queueMax              requests the queue holds; one more is rejected at once
 * @param queueTimeoutNanos     a newcomer waits at most this long
 * @param waitBoundNanos        a step of a session in progress waits at most this long (then it is admitted over the
 *                              budget); a newcomer that waited this long may be admitted with a smaller working set
 * @param keepAliveNanos        a queued stream gets a keep-alive event this often
 * @param alwaysEngaged         the budget applies whatever the evidence; else only while the pool thrashes ({@link ThrashSignal})
 * @param serviceHalfLifeNanos  half-life of the attained service the queue orders sessions in progress by
 * @param calmNanos             how long the budget must have had room for everyone before engaged admission lets go
 * @param failFast              a newcomer whose forecast wait passes the queue timeout is refused at once ({@link WaitForecast})
 * @param timeScale             engine time per wall time (a simulator K times faster: K), for what engines report in
 *                              their own time (the host tier's load times)
 */
public record AdmissionRules(boolean enabled, double kvBudget, long pausePriorNanos, long residencySliceNanos,
                             int queueMax, long queueTimeoutNanos, long waitBoundNanos, long keepAliveNanos, boolean alwaysEngaged,
                             long serviceHalfLifeNanos, long calmNanos, boolean failFast, double timeScale) {

    /** llm-d's program-aware fairness decays attained service with this half-life. */
    public static final Duration SERVICE_HALF_LIFE = Duration.ofSeconds(60);
    /** Workload time without a request that found no room, before engaged admission lets go. */
    public static final Duration CALM = Duration.ofSeconds(30);

    public static AdmissionRules of(AdmissionSettings s, double timeScale) {
        return new AdmissionRules(s.enabled(), s.kvBudget(), AdmissionSettings.wall(s.residencyIdle(), timeScale),
                AdmissionSettings.wall(s.residencySlice(), timeScale), s.queueMax(), AdmissionSettings.wall(s.queueTimeout(), timeScale),
                AdmissionSettings.wall(s.queueWaitBound(), timeScale),
                AdmissionSettings.wall(s.queueKeepAlive(), timeScale), AdmissionSettings.ENGAGE_ALWAYS.equals(s.engage()),
                AdmissionSettings.wall(SERVICE_HALF_LIFE, timeScale), AdmissionSettings.wall(CALM, timeScale), s.queueFailFast(), timeScale);
    }

    /**
     * The rules tests start from: engaged always, the default half-life and calm period, fail-fast, on the wall clock, and
     * steps of sessions in progress bounded by the queue timeout.
     */
    public static AdmissionRules engaged(double kvBudget, long pausePriorNanos, long residencySliceNanos, int queueMax,
                                         long queueTimeoutNanos, long keepAliveNanos) {
        return new AdmissionRules(true, kvBudget, pausePriorNanos, residencySliceNanos, queueMax, queueTimeoutNanos, queueTimeoutNanos,
                keepAliveNanos, true, SERVICE_HALF_LIFE.toNanos(), CALM.toNanos(), true, 1);
    }

    public AdmissionRules withWaitBound(long nanos) {
        return new AdmissionRules(enabled, kvBudget, pausePriorNanos, residencySliceNanos, queueMax, queueTimeoutNanos, nanos, keepAliveNanos,
                alwaysEngaged, serviceHalfLifeNanos, calmNanos, failFast, timeScale);
    }

    public AdmissionRules withEnabled(boolean on) {
        return new AdmissionRules(on, kvBudget, pausePriorNanos, residencySliceNanos, queueMax, queueTimeoutNanos, waitBoundNanos, keepAliveNanos,
                alwaysEngaged, serviceHalfLifeNanos, calmNanos, failFast, timeScale);
    }

    public AdmissionRules withAlwaysEngaged(boolean always) {
        return new AdmissionRules(enabled, kvBudget, pausePriorNanos, residencySliceNanos, queueMax, queueTimeoutNanos, waitBoundNanos, keepAliveNanos,
                always, serviceHalfLifeNanos, calmNanos, failFast, timeScale);
    }

    public AdmissionRules withFailFast(boolean on) {
        return new AdmissionRules(enabled, kvBudget, pausePriorNanos, residencySliceNanos, queueMax, queueTimeoutNanos, waitBoundNanos, keepAliveNanos,
                alwaysEngaged, serviceHalfLifeNanos, calmNanos, on, timeScale);
    }
}
