package io.lmwarden.common.logging;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The named values of one log event, carried as the record's only parameter so that the text
 * format prints them as {@code key=value} after the message and the JSON format as fields of the
 * object. The message itself stays a fixed phrase ("replica added"), which log queries can match.
 */
public record LogFields(List<Field> fields) {

    public record Field(String key, Object value) {
    }

    static final String FIELDS_PLACEHOLDER = " {0}";

    public LogFields {
        fields = List.copyOf(fields);
    }

    /** Alternating keys and values: {@code of("id", "sim-0", "ready", true)}. */
    public static LogFields of(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("log fields come in key, value pairs");
        }
        List<Field> list = new ArrayList<>(keysAndValues.length / 2);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            list.add(new Field(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]));
        }
        return new LogFields(list);
    }

    public static void info(Logger log, String message, Object... keysAndValues) {
        log(log, Level.INFO, message, null, keysAndValues);
    }

    public static void warn(Logger log, String message, Object... keysAndValues) {
        log(log, Level.WARNING, message, null, keysAndValues);
    }

    public static void log(Logger log, Level level, String message, Throwable thrown, Object... keysAndValues) {
        if (log.isLoggable(level)) {
            log.log(record(log.getName(), level, message, thrown, keysAndValues));
        }
    }

    /** A record as the loggers above make it, for a caller that publishes to a handler directly. */
    public static LogRecord record(String logger, Level level, String message, Throwable thrown, Object... keysAndValues) {
        // "{0}" lets any java.util.logging formatter (the default one in tests) print the fields too.
        LogRecord r = new LogRecord(level, message + FIELDS_PLACEHOLDER);
        r.setLoggerName(logger);
        r.setSourceClassName(logger);
        r.setSourceMethodName("");
        r.setParameters(new Object[] {of(keysAndValues)});
        r.setThrown(thrown);
        return r;
    }

    /** {@code key=value} pairs, as the text format prints them. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Field f : fields) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(f.key()).append('=').append(f.value());
        }
        return sb.toString();
    }

    /** The event's fixed phrase of a record made here, without the placeholder of its fields. */
    static String event(LogRecord r) {
        String m = r.getMessage();
        return m.endsWith(FIELDS_PLACEHOLDER) ? m.substring(0, m.length() - FIELDS_PLACEHOLDER.length()) : m;
    }

    /** The fields of a record made here; none for a record from anywhere else (Vert.x, fabric8). */
    static List<Field> in(LogRecord r) {
        Object[] p = r.getParameters();
        return p != null && p.length == 1 && p[0] instanceof LogFields f ? f.fields() : List.of();
    }
}
