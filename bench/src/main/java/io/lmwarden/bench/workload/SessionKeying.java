package io.lmwarden.bench.workload;

import java.util.Locale;

/** How a session tells the router who it is, the way one kind of agent does it. */
public enum SessionKeying {
    /** Claude Code's {@code X-Claude-Code-Session-Id} header. */
    CLAUDE_CODE_HEADER("X-Claude-Code-Session-Id"),
    /** Claude Code's body field {@code metadata.user_id}, a JSON string with {@code session_id} (Anthropic API only). */
    METADATA_USER_ID(null),
    /** Codex's {@code session-id} header. */
    CODEX_SESSION_ID("session-id"),
    /** opencode's and others' {@code X-Session-Id} header. */
    SESSION_ID_HEADER("X-Session-Id"),
    /** No key at all: the router can only fingerprint the conversation's start. */
    NONE(null);

    private final String header;

    SessionKeying(String header) {
        this.header = header;
    }

    /** The header carrying the id, or null when the id travels in the body or not at all. */
    public String header() {
        return header;
    }

    public static SessionKeying parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "claude-code", "claude-code-header", "x-claude-code-session-id" -> CLAUDE_CODE_HEADER;
            case "metadata", "metadata.user-id", "metadata-user-id" -> METADATA_USER_ID;
            case "codex", "session-id" -> CODEX_SESSION_ID;
            case "x-session-id", "session-id-header" -> SESSION_ID_HEADER;
            case "none", "keyless" -> NONE;
            default -> throw new IllegalArgumentException("session key must be claude-code, metadata, codex, x-session-id or none, got '"
                    + text + "'");
        };
    }
}
