package io.lmwarden.common;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one parser of durations as people type them in flags, env variables, YAML and CRDs, for the
 * router, the bench and the operator alike: {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 3m} (or
 * {@code 3min}), {@code 2h}, {@code 1d}, sums like {@code 1h30m}, ISO-8601 {@code PT15S}; a bare
 * number is seconds.
 */
public final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|min|s|m|h|d)");

    private Durations() {
    }

    /** @throws IllegalArgumentException with a message that says what forms are accepted */
    public static Duration parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.matches("\\d+(\\.\\d+)?")) {
            return Duration.ofNanos(Math.round(Double.parseDouble(t) * 1e9));
        }
        if (t.startsWith("p")) {
            try {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw notADuration(text);
            }
        }
        Matcher m = PART.matcher(t);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            double value = Double.parseDouble(m.group(1));
            double nanosPerUnit = switch (m.group(2)) {
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m", "min" -> 60e9;
                case "h" -> 3600e9;
                default -> 86_400e9;
            };
            total = total.plusNanos(Math.round(value * nanosPerUnit));
            end = m.end();
        }
        if (end != t.length() || t.isEmpty()) {
            throw notADuration(text);
        }
        return total;
    }

    /** The shortest of the forms above that gives {@code d} back exactly. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    private static IllegalArgumentException notADuration(String text) {
        return new IllegalArgumentException("not a duration: '" + text + "' (use forms like 500ms, 30s, 1.5s, 5m, 2h or 1h30m)");
    }
}
