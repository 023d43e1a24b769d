package io.lmwarden.router.pool;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A small reader for the Prometheus text exposition format: enough to take samples with their
 * labels from vLLM's {@code /metrics} without a client library.
 */
public final class PrometheusText {

    private PrometheusText() {
    }

    /** A sample line's metric name, labels and value. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    public static void forEachSample(CharSequence text, Consumer<Sample> sink) {
        int len = text.length();
        int i = 0;
        while (i < len) {
            int end = i;
            while (end < len && text.charAt(end) != '\n') {
                end++;
            }
            if (end > i && text.charAt(i) != '#') {
                Sample s = parseLine(text, i, end);
                if (s != null) {
                    sink.accept(s);
                }
            }
            i = end + 1;
        }
    }

    static Sample parseLine(CharSequence text, int from, int to) {
        int i = from;
        while (i < to && text.charAt(i) != '{' && text.charAt(i) != ' ') {
            i++;
        }
        String name = text.subSequence(from, i).toString();
        Map<String, String> labels = Map.of();
        if (i < to && text.charAt(i) == '{') {
            labels = new HashMap<>();
            i++;
            while (i < to && text.charAt(i) != '}') {
                int eq = i;
                while (eq < to && text.charAt(eq) != '=') {
                    eq++;
                }
                String key = text.subSequence(i, eq).toString().trim();
                int q = eq + 1;
                if (q >= to || text.charAt(q) != '"') {
                    return null;
                }
                StringBuilder value = new StringBuilder();
                int j = q + 1;
                while (j < to && text.charAt(j) != '"') {
                    char c = text.charAt(j);
                    if (c == '\\' && j + 1 < to) {
                        char n = text.charAt(++j);
                        value.append(n == 'n' ? '\n' : n);
                    } else {
                        value.append(c);
                    }
                    j++;
                }
                labels.put(key, value.toString());
                i = j + 1;
                while (i < to && (text.charAt(i) == ',' || text.charAt(i) == ' ')) {
                    i++;
                }
            }
            i++;
        }
        while (i < to && text.charAt(i) == ' ') {
            i++;
        }
        int v = i;
        while (v < to && text.charAt(v) != ' ' && text.charAt(v) != '\r') {
            v++;
        }
        if (v == i) {
            return null;
        }
        String raw = text.subSequence(i, v).toString();
        double value;
        try {
            value = switch (raw) {
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                case "NaN" -> Double.NaN;
                default -> Double.parseDouble(raw);
            };
        } catch (NumberFormatException e) {
            return null;
        }
        return new Sample(name, labels, value);
    }
}
