package io.lmwarden.router.session;

/** Which API a request speaks; decides the shape of errors and of stream completion. */
public enum ApiFlavor {
    OPENAI_CHAT("/v1/chat/completions"),
    OPENAI_COMPLETIONS("/v1/completions"),
    OPENAI_RESPONSES("/v1/responses"),
    ANTHROPIC_MESSAGES("/v1/messages"),
    ANTHROPIC_COUNT_TOKENS("/v1/messages/count_tokens");

    private final String path;

    ApiFlavor(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    /** Whether the request generates, and so leaves a prompt in an engine's cache; count_tokens only counts. */
    public boolean placed() {
        return this != ANTHROPIC_COUNT_TOKENS;
    }

    public boolean anthropic() {
        return this == ANTHROPIC_MESSAGES || this == ANTHROPIC_COUNT_TOKENS;
    }

    /** The API served at a path, by exact match; null for the router's and the engine's own endpoints. */
    public static ApiFlavor forPath(String path) {
        for (ApiFlavor f : values()) {
            if (f.path.equals(path)) {
                return f;
            }
        }
        return null;
    }
}
