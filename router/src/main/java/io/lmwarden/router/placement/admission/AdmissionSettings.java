package io.lmwarden.router.placement.admission;

import java.time.Duration;

/**
 * How admission behaves, with every duration already on the router's wall clock (a simulator
 * running K times faster divides the workload times by K).
 *
 * @param kvBudget          share of each replica's KV capacity the resident working sets may fill
 * @param residencyIdleNanos a resident session with nothing in flight this long stops being resident
 * @param residencySliceNanos a session resident this long yields its residency at its next pause when others wait
 * @param queueMax          requests the queue holds; one more is rejected at once
 * @param queueTimeoutNanos a request waits at most this long
 * @param keepAliveNanos    a queued stream gets a keep-alive event this often
 */
public record AdmissionSettings(boolean enabled, double kvBudget, long residencyIdleNanos, long residencySliceNanos,
                                int queueMax, long queueTimeoutNanos, long keepAliveNanos) {

    public AdmissionSettings {
        if (!(kvBudget > 0) || kvBudget > 4) {
            throw new IllegalArgumentException("kvBudget must be in (0, 4], got " + kvBudget);
        }
        if (residencyIdleNanos <= 0 || residencySliceNanos <= 0 || queueTimeoutNanos <= 0 || keepAliveNanos <= 0) {
            throw new IllegalArgumentException("admission durations must be > 0");
        }
        if (queueMax < 0) {
            throw new IllegalArgumentException("queueMax must be >= 0, got " + queueMax);
        }
    }

    /** From workload durations: each divided by the time scale. */
    public static AdmissionSettings of(boolean enabled, double kvBudget, Duration residencyIdle, Duration residencySlice,
                                       int queueMax, Duration queueTimeout, Duration keepAlive, double timeScale) {
        return new AdmissionSettings(enabled, kvBudget, wall(residencyIdle, timeScale), wall(residencySlice, timeScale),
                queueMax, wall(queueTimeout, timeScale), wall(keepAlive, timeScale));
    }

    private static long wall(Duration d, double timeScale) {
        return Math.max(1, (long) (d.toNanos() / timeScale));
    }

    public AdmissionSettings withEnabled(boolean on) {
        return new AdmissionSettings(on, kvBudget, residencyIdleNanos, residencySliceNanos, queueMax, queueTimeoutNanos, keepAliveNanos);
    }
}
