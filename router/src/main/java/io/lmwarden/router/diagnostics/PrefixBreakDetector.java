package io.lmwarden.router.diagnostics;

import io.lmwarden.router.session.PromptShape;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Question 1, "did the input change after templating?": compares each step's canonical prompt
 * blocks with the previous step's of the same session. A growing conversation shares the whole
 * previous prompt; a shorter shared prefix is a break, reported with its position and segment.
 */
public final class PrefixBreakDetector {

    /** How a step relates to the previous one. */
    public record Comparison(int sharedPrefixTokens, Optional<PrefixBreak> prefixBreak) {
        static final Comparison FIRST = new Comparison(0, Optional.empty());
    }

    private final LinkedHashMap<String, PromptShape> previous;

    public PrefixBreakDetector(int maxSessions) {
        this.previous = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PromptShape> eldest) {
                return size() > maxSessions;
            }
        };
    }

    /** Compares with the session's previous step and remembers this one. */
    public synchronized Comparison compare(String sessionKey, PromptShape current) {
        PromptShape prev = previous.put(sessionKey, current);
        if (prev == null) {
            return Comparison.FIRST;
        }
        int shared = current.sharedBlocks(prev);
        int sharedChars = shared * PromptShape.BLOCK_CHARS;
        int sharedTokens = PromptShape.tokensForChars(sharedChars);
        // The previous prompt's last partial block is never compared: only whole blocks are cached.
        if (shared >= prev.blocks()) {
            return new Comparison(sharedTokens, Optional.empty());
        }
        return new Comparison(sharedTokens, Optional.of(new PrefixBreak(sharedChars, sharedTokens,
                current.segmentAt(sharedChars), prev.estimatedTokens())));
    }
}
