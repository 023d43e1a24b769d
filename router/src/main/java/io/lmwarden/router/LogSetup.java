package io.lmwarden.router;

import java.time.Instant;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** One line per event on stderr, as text or JSON ({@code LMW_LOG_FORMAT=json}). */
final class LogSetup {

    private LogSetup() {
    }

    static void configure(String format) {
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler handler = new ConsoleHandler();
        handler.setLevel(Level.INFO);
        handler.setFormatter("json".equals(format) ? new JsonLine() : new TextLine());
        root.addHandler(handler);
        root.setLevel(Level.INFO);
    }

    private static final class TextLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            String thrown = r.getThrown() == null ? "" : " error=" + r.getThrown();
            return Instant.ofEpochMilli(r.getMillis()) + " " + r.getLevel() + " " + shortName(r.getLoggerName()) + " "
                    + formatMessage(r) + thrown + System.lineSeparator();
        }
    }

    private static final class JsonLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder sb = new StringBuilder(160);
            sb.append("{\"ts\":\"").append(Instant.ofEpochMilli(r.getMillis())).append("\",\"level\":\"").append(r.getLevel())
                    .append("\",\"logger\":");
            quote(sb, shortName(r.getLoggerName()));
            sb.append(",\"msg\":");
            quote(sb, formatMessage(r));
            if (r.getThrown() != null) {
                sb.append(",\"error\":");
                quote(sb, r.getThrown().toString());
            }
            return sb.append('}').append(System.lineSeparator()).toString();
        }
    }

    private static String shortName(String logger) {
        if (logger == null) {
            return "";
        }
        int dot = logger.lastIndexOf('.');
        return dot < 0 ? logger : logger.substring(dot + 1);
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
