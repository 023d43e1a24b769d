package io.lmwarden.router.diagnostics;

/**
 * Something early in the prompt changed between two steps of a session, so the engine cannot reuse
 * what it cached after that point.
 *
 * @param atChar          first character (block-aligned) where the prompts differ
 * @param atToken         the same position in estimated tokens
 * @param segment         the part of the prompt it falls in: system, tools, message n
 * @param previousTokens  size of the previous step's prompt; everything after atToken of it is lost
 */
public record PrefixBreak(int atChar, int atToken, String segment, int previousTokens) {
}
