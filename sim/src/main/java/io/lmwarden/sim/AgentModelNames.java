package io.lmwarden.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Extra served names for {@code --simulate}: the model names coding agents send when nobody configured one, so
 * that they work against simulated replicas unchanged. Claude Code 2.1.332 sends {@code claude-opus-5-5} by
 * default and {@code claude-sonnet-5-5} / {@code claude-haiku-5-5} for its {@code sonnet} / {@code haiku}
 * aliases (found by pointing it at a replica that served none of them); the 4.x names cover earlier releases.
 * Codex and opencode name the model in their provider configuration, so they need no alias.
 */
public final class AgentModelNames {
    public static final List<String> CLAUDE_CODE_DEFAULTS = List.of(
            "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5",
            "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6",
            "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001");

    private AgentModelNames() {
    }

    /** {@code model} first (it labels the metrics), then the agents' default names. */
    public static List<String> servedWith(String model) {
        List<String> names = new ArrayList<>();
        names.add(model);
        names.addAll(CLAUDE_CODE_DEFAULTS);
        return names;
    }
}
