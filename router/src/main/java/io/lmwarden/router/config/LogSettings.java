package io.lmwarden.router.config;

import java.util.List;
import java.util.Optional;

/** How the router reports: how log lines (the request log too) are written, and what its meters are tagged with. */
public record LogSettings(String logFormat, Optional<String> deployment) {

    public static final Setting<String> LOG_FORMAT = Setting.choice("logFormat", "text", List.of("text", "json"),
            "log line format: text or json");
    public static final Setting<Optional<String>> DEPLOYMENT = Setting.optionalText("deployment",
            "the ModelDeployment this router serves (the operator sets LMW_DEPLOYMENT): every meter gets the tag deployment=<it>, "
                    + "which autoscalers select by");

    public boolean json() {
        return logFormat.equals("json");
    }
}
