package io.lmwarden.router.session;

/**
 * A named part of the canonical prompt (system, tools, message n) and where it starts, in characters: its
 * role marker at {@code startChar}, its own text at {@code textStartChar}.
 */
public record PromptSegment(String name, int startChar, int textStartChar) {

    /** A user turn of the conversation (not a system-like message, not the tools). */
    public boolean userMessage() {
        return name.startsWith("message ") && name.endsWith("(user)");
    }
}
