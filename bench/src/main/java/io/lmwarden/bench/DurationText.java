package io.lmwarden.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people type them: {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 3m}, {@code 1h}; a bare number is seconds. */
public final class DurationText {

    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min|h)?");

    private DurationText() {
    }

    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("pt")) {
            return Duration.parse(t.toUpperCase(Locale.ROOT));
        }
        Matcher m = FORM.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use e.g. 500ms, 2s, 1.5s, 3m or 1h");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double nanosPerUnit = switch (unit) {
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m", "min" -> 60e9;
            case "h" -> 3600e9;
            default -> throw new IllegalArgumentException("unknown unit " + unit);
        };
        return Duration.ofNanos(Math.round(value * nanosPerUnit));
    }
}
