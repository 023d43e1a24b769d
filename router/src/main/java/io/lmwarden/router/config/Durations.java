package io.lmwarden.router.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the human duration forms used in flags, env and YAML: {@code 500ms}, {@code 30s}, {@code 2h}, {@code 1h30m}. */
public final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");

    private Durations() {
    }

    public static Duration parse(String text) {
        String t = text.trim().toLowerCase();
        if (t.matches("\\d+")) {
            return Duration.ofSeconds(Long.parseLong(t));
        }
        if (t.startsWith("p")) {
            return Duration.parse(t.toUpperCase());
        }
        Matcher m = PART.matcher(t);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            double value = Double.parseDouble(m.group(1));
            long millis = switch (m.group(2)) {
                case "ms" -> Math.round(value);
                case "s" -> Math.round(value * 1000);
                case "m" -> Math.round(value * 60_000);
                case "h" -> Math.round(value * 3_600_000);
                default -> Math.round(value * 86_400_000);
            };
            total = total.plusMillis(millis);
            end = m.end();
        }
        if (end != t.length() || t.isEmpty()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (use forms like 500ms, 30s, 5m, 2h)");
        }
        return total;
    }

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
}
