package io.lmwarden.router.config;

import java.util.List;

/** How log lines (the request log too) are written. */
public record LogSettings(String logFormat) {

    public static final Setting<String> LOG_FORMAT = Setting.choice("logFormat", "text", List.of("text", "json"),
            "log line format: text or json");

    public boolean json() {
        return logFormat.equals("json");
    }
}
