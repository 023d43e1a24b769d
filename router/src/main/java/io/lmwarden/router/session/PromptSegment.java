package io.lmwarden.router.session;

/** A named part of the canonical prompt (system, tools, message n) and where it starts, in characters. */
public record PromptSegment(String name, int startChar) {
}
