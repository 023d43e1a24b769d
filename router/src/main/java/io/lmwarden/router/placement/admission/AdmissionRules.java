package io.lmwarden.router.placement.admission;

import io.lmwarden.router.config.AdmissionSettings;

/**
 * The admission settings as the controller applies them: every duration on the router's wall clock (a
 * simulator running K times faster divides the workload times by K). The values were checked when the
 * settings were read ({@link AdmissionSettings}).
 *
 * @param kvBudget            share of each replica's KV capacity the resident working sets may fill
 * @param residencyIdleNanos  a resident session with nothing in flight this long stops being resident
 * @param residencySliceNanos a session resident this long yields its residency at its next pause when others wait
 * @param queueMax            requests the queue holds; one more is rejected at once
 * @param queueTimeoutNanos   a request waits at most this long
 * @param keepAliveNanos      a queued stream gets a keep-alive event this often
 */
public record AdmissionRules(boolean enabled, double kvBudget, long residencyIdleNanos, long residencySliceNanos,
                             int queueMax, long queueTimeoutNanos, long keepAliveNanos) {

    public static AdmissionRules of(AdmissionSettings s, double timeScale) {
        return new AdmissionRules(s.enabled(), s.kvBudget(), AdmissionSettings.wall(s.residencyIdle(), timeScale),
                AdmissionSettings.wall(s.residencySlice(), timeScale), s.queueMax(), AdmissionSettings.wall(s.queueTimeout(), timeScale),
                AdmissionSettings.wall(s.queueKeepAlive(), timeScale));
    }

    public AdmissionRules withEnabled(boolean on) {
        return new AdmissionRules(on, kvBudget, residencyIdleNanos, residencySliceNanos, queueMax, queueTimeoutNanos, keepAliveNanos);
    }
}
