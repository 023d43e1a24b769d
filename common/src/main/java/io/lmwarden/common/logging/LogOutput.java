package io.lmwarden.common.logging;

import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * One line per log event on stderr, as text or as a JSON object ({@code --log-format json}), for the
 * router and the simulator alike. The JSON keys are those of the operator's log lines: {@code time},
 * {@code level}, {@code logger}, {@code message}, {@code error}, then the event's own fields.
 *
 * <p>java.util.logging removes its handlers in a shutdown hook of its own, racing ours; {@link #shutdownLine}
 * writes through the handler this object keeps, so "shutdown complete" is never lost.
 */
public final class LogOutput {

    public static final List<String> FORMATS = List.of("text", "json");

    private final Handler handler;
    private final boolean json;

    private LogOutput(Handler handler, boolean json) {
        this.handler = handler;
        this.json = json;
    }

    /** Replaces the root logger's handlers with one writing lines of this format to stderr. */
    public static LogOutput install(String format) {
        return install(format, System.err);
    }

    public static LogOutput install(String format, PrintStream out) {
        if (!FORMATS.contains(format)) {
            throw new IllegalArgumentException("log format must be text or json, got '" + format + "'");
        }
        boolean json = format.equals("json");
        Handler handler = new StreamHandler(out, json ? new JsonLine() : new TextLine()) {
            @Override
            public synchronized void publish(LogRecord record) {
                super.publish(record);
                flush();
            }

            @Override
            public synchronized void close() {
                flush(); // never close stderr: JUL's own shutdown hook closes handlers before ours are done
            }
        };
        handler.setLevel(Level.INFO);
        Logger root = LogManager.getLogManager().getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        root.addHandler(handler);
        root.setLevel(Level.INFO);
        return new LogOutput(handler, json);
    }

    public boolean json() {
        return json;
    }

    /** Writes a line even while or after java.util.logging shuts down. */
    public void shutdownLine(String logger, String message, Object... keysAndValues) {
        handler.publish(LogFields.record(logger, Level.INFO, message, null, keysAndValues));
    }

    private static final class TextLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder line = new StringBuilder(160).append(Instant.ofEpochMilli(r.getMillis())).append(' ')
                    .append(r.getLevel().getName()).append(' ').append(shortName(r.getLoggerName())).append(' ')
                    .append(oneLine(message(this, r)));
            for (LogFields.Field f : LogFields.in(r)) {
                String v = oneLine(String.valueOf(f.value()));
                line.append(' ').append(f.key()).append('=');
                if (v.isEmpty() || v.indexOf(' ') >= 0 || v.indexOf('"') >= 0) {
                    quote(line, v);
                } else {
                    line.append(v);
                }
            }
            if (r.getThrown() != null) {
                line.append(" error=");
                quote(line, summary(r.getThrown()));
            }
            return line.append(System.lineSeparator()).toString();
        }
    }

    private static final class JsonLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder line = new StringBuilder(200).append("{\"time\":\"").append(Instant.ofEpochMilli(r.getMillis()))
                    .append("\",\"level\":\"").append(r.getLevel().getName()).append("\",\"logger\":");
            quote(line, shortName(r.getLoggerName()));
            line.append(",\"message\":");
            quote(line, message(this, r));
            for (LogFields.Field f : LogFields.in(r)) {
                line.append(',');
                quote(line, f.key());
                line.append(':');
                Object v = f.value();
                if (v instanceof Number || v instanceof Boolean) {
                    line.append(v);
                } else {
                    quote(line, String.valueOf(v));
                }
            }
            if (r.getThrown() != null) {
                line.append(",\"error\":");
                quote(line, summary(r.getThrown()));
            }
            return line.append('}').append(System.lineSeparator()).toString();
        }
    }

    /** Our records carry fields, not format arguments; anyone else's message is formatted as usual. */
    private static String message(Formatter f, LogRecord r) {
        return r.getParameters() != null && r.getParameters().length == 1 && r.getParameters()[0] instanceof LogFields
                ? LogFields.event(r) : f.formatMessage(r);
    }

    private static String summary(Throwable thrown) {
        StringBuilder text = new StringBuilder(oneLine(thrown.toString()));
        for (Throwable cause = thrown.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            text.append("; caused by ").append(oneLine(cause.toString()));
        }
        return text.toString();
    }

    private static String shortName(String logger) {
        if (logger == null) {
            return "";
        }
        int dot = logger.lastIndexOf('.');
        return dot < 0 ? logger : logger.substring(dot + 1);
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replace('\n', ' ').replace('\r', ' ');
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
