package io.lmwarden.common.api;

import java.util.Locale;

/**
 * The inference APIs the router proxies, the simulator serves and the bench speaks, one per request path: the
 * request's shape, its error shape (OpenAI's {@code {"error":{…}}} or Anthropic's {@code {"type":"error",…}})
 * and how a stream ends. One enum for the three modules, so that a path means the same API everywhere.
 */
public enum ApiDialect {
    OPENAI_CHAT("/v1/chat/completions", "openai"),
    OPENAI_COMPLETIONS("/v1/completions", "completions"),
    OPENAI_RESPONSES("/v1/responses", "responses"),
    ANTHROPIC_MESSAGES("/v1/messages", "anthropic"),
    ANTHROPIC_COUNT_TOKENS("/v1/messages/count_tokens", "count_tokens");

    private final String path;
    private final String shortName;

    ApiDialect(String path, String shortName) {
        this.path = path;
        this.shortName = shortName;
    }

    public String path() {
        return path;
    }

    /** How people name it on a command line or in a workload file: {@code anthropic}, {@code openai}, {@code responses}, … */
    public String shortName() {
        return shortName;
    }

    /** Whether the request generates, and so leaves a prompt in an engine's cache; count_tokens only counts. */
    public boolean generates() {
        return this != ANTHROPIC_COUNT_TOKENS;
    }

    /** Anthropic's shapes (errors, stream events); else OpenAI's. */
    public boolean anthropic() {
        return this == ANTHROPIC_MESSAGES || this == ANTHROPIC_COUNT_TOKENS;
    }

    /** The API served at a path, by exact match; null for the router's and the engine's own endpoints. */
    public static ApiDialect forPath(String path) {
        for (ApiDialect d : values()) {
            if (d.path.equals(path)) {
                return d;
            }
        }
        return null;
    }

    /** By its {@link #shortName}, in any case. */
    public static ApiDialect parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (ApiDialect d : values()) {
            if (d.shortName.equals(t)) {
                return d;
            }
        }
        throw new IllegalArgumentException("API must be one of anthropic, openai, responses, completions, count_tokens; got '" + text + "'");
    }
}
