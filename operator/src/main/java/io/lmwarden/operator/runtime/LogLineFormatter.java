package io.lmwarden.operator.runtime;

import java.time.Instant;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * One line per log event, as plain text or as a JSON object ({@code LMW_LOG_FORMAT=json}). An
 * exception is summarised on the same line with its cause chain, so log collectors never split an
 * event across records.
 */
public final class LogLineFormatter extends Formatter {
    private final boolean json;

    public LogLineFormatter(boolean json) {
        this.json = json;
    }

    /** Puts this formatter on every handler of the root logger (java.util.logging, the slf4j binding). */
    public static void install(String format) {
        if (!format.equals("text") && !format.equals("json")) {
            throw new IllegalArgumentException("log format must be text or json, got '" + format + "'");
        }
        Logger root = LogManager.getLogManager().getLogger("");
        for (Handler handler : root.getHandlers()) {
            handler.setFormatter(new LogLineFormatter(format.equals("json")));
        }
    }

    @Override
    public String format(LogRecord record) {
        String message = formatMessage(record);
        String error = record.getThrown() == null ? null : summary(record.getThrown());
        String time = Instant.ofEpochMilli(record.getMillis()).toString();
        if (json) {
            StringBuilder line = new StringBuilder(128)
                    .append("{\"time\":\"").append(time)
                    .append("\",\"level\":\"").append(record.getLevel().getName())
                    .append("\",\"logger\":").append(quote(record.getLoggerName()))
                    .append(",\"message\":").append(quote(message));
            if (error != null) {
                line.append(",\"error\":").append(quote(error));
            }
            return line.append("}\n").toString();
        }
        return time + " " + record.getLevel().getName() + " " + record.getLoggerName() + " - "
                + oneLine(message) + (error == null ? "" : " | " + error) + "\n";
    }

    private static String summary(Throwable thrown) {
        StringBuilder text = new StringBuilder(oneLine(thrown.toString()));
        StackTraceElement[] frames = thrown.getStackTrace();
        if (frames.length > 0) {
            text.append(" at ").append(frames[0]);
        }
        for (Throwable cause = thrown.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            text.append("; caused by ").append(oneLine(cause.toString()));
        }
        return text.toString();
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replace('\n', ' ').replace('\r', ' ');
    }

    private static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
