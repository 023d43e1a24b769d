package io.lmwarden.router.diagnostics;

/**
 * Something in the prompt changed between two steps of a session, so the engine cannot reuse what it
 * cached after that point.
 *
 * @param atChar          first character (block-aligned) where the prompts differ
 * @param atToken         the same position in estimated tokens
 * @param segment         the part of the prompt it falls in: system, tools, message n
 * @param charInSegment   the same position counted from the start of that segment's own text (block-aligned like atChar)
 * @param text            the first characters of this step's prompt from there on: the block where the change is, not
 *                        the prompt (empty when the router no longer had the text to look at)
 * @param previousTokens  size of the previous step's prompt; everything after atToken of it is lost
 */
public record PrefixBreak(int atChar, int atToken, String segment, int charInSegment, String text, int previousTokens) {
}
