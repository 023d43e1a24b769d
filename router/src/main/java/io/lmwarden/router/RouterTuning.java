package io.lmwarden.router;

import io.lmwarden.router.diagnostics.LiveWorkingSets;

import java.time.Duration;

/**
 * Internal constants that tests need to change, and nobody else: not settings (an operator has no reason to),
 * each defaulting to the constant beside the class that uses it. A test that needs another one adds a
 * component here.
 *
 * @param activeWindowWorkload how recent a session's last step must be for the capacity advisor to count it,
 *                             in workload time ({@link LiveWorkingSets#ACTIVE_WINDOW_WORKLOAD})
 */
public record RouterTuning(Duration activeWindowWorkload) {

    public static final RouterTuning DEFAULTS = new RouterTuning(LiveWorkingSets.ACTIVE_WINDOW_WORKLOAD);

    public RouterTuning withActiveWindow(Duration workload) {
        return new RouterTuning(workload);
    }
}
