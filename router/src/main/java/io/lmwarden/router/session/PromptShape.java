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

    /**
     * The same prompt as another cache identity sees it: every block hash mixed with {@code identity}'s, so it shares no
     * block with the prompt under any other identity while equal prefixes under this one still hash alike. vLLM puts a
     * LoRA adapter's name in every block's extra keys ({@code _gen_lora_extra_hash_keys}): the same text under two
     * adapters, or under an adapter and its base model, is never a hit.
     */
    public PromptShape keyedBy(String identity) {
        long key = 0xcbf29ce484222325L;
        for (int i = 0; i < identity.length(); i++) {
            key = (key ^ identity.charAt(i)) * 0x100000001b3L;
        }
        long[] keyed = new long[blockHashes.length];
        for (int i = 0; i < keyed.length; i++) {
            long h = blockHashes[i] ^ key;
            h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
            h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
            keyed[i] = h ^ (h >>> 33);
        }
        return new PromptShape(keyed, chars, estimatedTokens, segments);
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

    /** The name of the segment containing the given character position. */
    public String segmentAt(int charPosition) {
        PromptSegment s = segmentContaining(charPosition);
        return s == null ? "prompt" : s.name();
    }

    /** The segment containing the given character position (the first one before it starts), null without segments. */
    public PromptSegment segmentContaining(int charPosition) {
        PromptSegment found = segments.isEmpty() ? null : segments.get(0);
        for (PromptSegment s : segments) {
            if (s.startChar() <= charPosition) {
                found = s;
            } else {
                break;
            }
        }
        return found;
    }

    /** The first user turn, or null: where the conversation itself starts, after system prompt and tools. */
    public PromptSegment firstUserMessage() {
        for (PromptSegment s : segments) {
            if (s.userMessage()) {
                return s;
            }
        }
        return null;
    }

    /** Where the segment ends: the next one's start, or the prompt's end. */
    public int endOf(PromptSegment segment) {
        int i = segments.indexOf(segment);
        return i >= 0 && i + 1 < segments.size() ? segments.get(i + 1).startChar() : chars;
    }

    public static int tokensForChars(long chars) {
        return (int) Math.ceil(chars / CHARS_PER_TOKEN);
    }
}
