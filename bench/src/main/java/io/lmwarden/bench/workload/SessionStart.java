package io.lmwarden.bench.workload;

import java.util.Locale;

/** How the sessions a stage adds begin. */
public enum SessionStart {
    /** At their first step, all at once: the reference workload (a stage's first minute is a burst of first steps). */
    FRESH,
    /**
     * Somewhere in the middle of their life, as a session found running at a random moment would be: a session drawn in
     * proportion to its length, a step uniform among its steps, the history before it already built (compactions
     * included), and the first call after the rest of a pause (drawn in proportion to its length: a session found
     * pausing is more likely in a long pause). The stage is at its steady mix of young and old
     * contexts from the start instead of after one session lifetime (hours, for {@code claude-code-tools}). Their first
     * call is cold in every variant, and their session times are lower bounds. Replacements start fresh.
     */
    STEADY;

    public static SessionStart parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "fresh" -> FRESH;
            case "steady" -> STEADY;
            default -> throw new IllegalArgumentException("start must be 'fresh' or 'steady', got '" + text + "'");
        };
    }
}
