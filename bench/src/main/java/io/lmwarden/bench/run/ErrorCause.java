package io.lmwarden.bench.run;

import java.util.Map;
import java.util.TreeMap;

/** Groups failed steps by what went wrong, so a report can say "20 × HTTP 503, 3 × stream cut" rather than "23 errors". */
public final class ErrorCause {
    /** Nothing listened on the router's port: the step never reached a router. */
    public static final String REFUSED = "connection refused";

    private ErrorCause() {
    }

    /** A short cause for a step's error text (see StreamingClient and SessionDriver for the texts). */
    public static String of(String error) {
        if (error == null) {
            return null;
        }
        if (error.startsWith("HTTP ")) {
            int end = error.indexOf(':');
            int comma = error.indexOf(',');
            int cut = end < 0 ? comma : comma < 0 ? end : Math.min(end, comma);
            return cut < 0 ? error : error.substring(0, cut);
        }
        String e = error.toLowerCase(java.util.Locale.ROOT);
        if (e.contains("refused")) {
            return REFUSED;
        }
        if (e.contains("timeout") || e.contains("timed out")) {
            return "timeout";
        }
        if (e.contains("closed") || e.contains("broken") || e.contains("cut") || e.contains("reset") || e.contains("without")) {
            return "stream cut";
        }
        if (e.startsWith("request failed")) {
            return "request failed";
        }
        return "stream error";
    }

    public static Map<String, Integer> count(Iterable<StepRecord> steps) {
        Map<String, Integer> out = new TreeMap<>();
        for (StepRecord r : steps) {
            if (!r.ok()) {
                out.merge(of(r.error()), 1, Integer::sum);
            }
        }
        return out;
    }
}
