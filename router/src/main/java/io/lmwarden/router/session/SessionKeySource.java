package io.lmwarden.router.session;

/** Where a session key came from, in the order they are tried (first match wins). */
public enum SessionKeySource {
    CLAUDE_CODE_HEADER("x-claude-code-session-id"),
    METADATA_USER_ID("metadata.user_id"),
    CODEX_HEADER("session-id"),
    SESSION_ID_HEADER("x-session-id"),
    SESSION_AFFINITY_HEADER("x-session-affinity"),
    PROMPT_CACHE_KEY("prompt_cache_key"),
    CONVERSATION("conversation"),
    USER("user"),
    /** No key: the conversation's lineage, recognised by the earlier prompt it re-sends. */
    LINEAGE("lineage"),
    /** No key and no messages (a completions prompt): a hash of the prompt's start. */
    FINGERPRINT("fingerprint");

    private final String label;

    SessionKeySource(String label) {
        this.label = label;
    }

    /** The header or body field it came from, as shown in metrics and the API. */
    public String label() {
        return label;
    }
}
