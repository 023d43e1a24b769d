package io.lmwarden.bench.workload;

import io.lmwarden.common.api.ApiDialect;

import java.util.Locale;

/**
 * The APIs a workload's agents may speak, as a workload file and {@code --api} name them, and how each API's agents key
 * their sessions by default. How a step is then sent and read is the client's ({@code client/AgentApis}).
 */
public final class AgentApiNames {

    private AgentApiNames() {
    }

    /** As {@code --api} and a workload file's {@code api} name them: anthropic, openai or responses. */
    public static ApiDialect parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "anthropic" -> ApiDialect.ANTHROPIC_MESSAGES;
            case "openai" -> ApiDialect.OPENAI_CHAT;
            case "responses" -> ApiDialect.OPENAI_RESPONSES;
            default -> throw new IllegalArgumentException("--api must be 'anthropic', 'openai' or 'responses', got '" + text + "'");
        };
    }

    /** How the API's agents key their sessions by default. */
    public static SessionKeying defaultKeying(ApiDialect api) {
        return switch (api) {
            case ANTHROPIC_MESSAGES -> SessionKeying.CLAUDE_CODE_HEADER;
            case OPENAI_CHAT -> SessionKeying.SESSION_ID_HEADER;
            default -> SessionKeying.CODEX_SESSION_ID;
        };
    }
}
