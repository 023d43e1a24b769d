package io.lmwarden.router.session;

import java.util.List;

/**
 * What the router knows of a prompt without a tokenizer: chained hashes of fixed-size character
 * blocks of the canonical prompt text (block i's hash covers blocks 0..i, like vLLM's block hashes),
 * its length, a token estimate, and the segments it was built from.
 */
public record PromptShape(long[] blockHashes, int chars, int estimatedTokens, List<PromptSegment> segments) {

    /** Characters per block: 16 tokens at the ~4 characters per token the estimate assumes. */
    public static final int BLOCK_CHARS = 64;
    public static final double CHARS_PER_TOKEN = 4.0;

    public PromptShape {
        segments = List.copyOf(segments);
    }

    public static PromptShape empty() {
        return new PromptShape(new long[0], 0, 0, List.of());
    }

    public int blocks() {
        return blockHashes.length;
    }

    /** Number of leading blocks this prompt shares with another (equal chain hashes imply equal prefixes). */
    public int sharedBlocks(PromptShape other) {
        int n = Math.min(blockHashes.length, other.blockHashes.length);
        int i = 0;
        while (i < n && blockHashes[i] == other.blockHashes[i]) {
            i++;
        }
        return i;
    }

    /** The segment containing the given character position. */
    public String segmentAt(int charPosition) {
        String name = segments.isEmpty() ? "prompt" : segments.get(0).name();
        for (PromptSegment s : segments) {
            if (s.startChar() <= charPosition) {
                name = s.name();
            } else {
                break;
            }
        }
        return name;
    }

    public static int tokensForChars(long chars) {
        return (int) Math.ceil(chars / CHARS_PER_TOKEN);
    }
}
