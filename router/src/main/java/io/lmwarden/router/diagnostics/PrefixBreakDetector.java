package io.lmwarden.router.diagnostics;

import io.lmwarden.router.session.PromptShape;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Question 1, "did the input change after templating?": compares each step's canonical prompt
 * blocks with the previous step of the same conversation lineage, in arrival order. One session id
 * can carry several lineages: Claude Code's title generation and opencode's concurrent side calls
 * share the conversation's id with another system prompt and tools. A step's lineage parent is the
 * recent step of the session whose prompt it extends (or, failing that, shares most with); a step
 * that shares less than a quarter of that closest prompt starts a lineage of its own, a side request,
 * and is never a break. A step that extends its parent is growth; any other shortfall is a break,
 * reported with its position and segment. The price of the rule: a change in the first quarter of a
 * session's prompt reads as a side request, not as a break.
 */
public final class PrefixBreakDetector {

    /** Sessions whose recent prompt shapes are kept for the comparison (≈ 8 B per 16 tokens each). */
    public static final int SESSIONS_KEPT = 4096;
    /** Steps of a session kept to find lineage parents among. */
    static final int STEPS_REMEMBERED = 8;
    /** A step sharing less than this share of its closest earlier prompt is another conversation under the same id. */
    static final double SIDE_REQUEST_MAX_SHARE = 0.25;

    /** How a step relates to its lineage parent. */
    public record Comparison(int sharedPrefixTokens, Optional<PrefixBreak> prefixBreak, boolean sideRequest) {
        static final Comparison FIRST = new Comparison(0, Optional.empty(), false);
    }

    private final LinkedHashMap<String, Deque<PromptShape>> recent;

    public PrefixBreakDetector(int maxSessions) {
        this.recent = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Deque<PromptShape>> eldest) {
                return size() > maxSessions;
            }
        };
    }

    /** Compares with the step's lineage parent and remembers this one; call in arrival order. */
    public synchronized Comparison compare(String sessionKey, PromptShape current) {
        Deque<PromptShape> steps = recent.computeIfAbsent(sessionKey, k -> new ArrayDeque<>());
        Comparison c = compareWithParent(steps, current);
        steps.addLast(current);
        if (steps.size() > STEPS_REMEMBERED) {
            steps.removeFirst();
        }
        return c;
    }

    private static Comparison compareWithParent(Deque<PromptShape> steps, PromptShape current) {
        PromptShape parent = null;
        int parentShared = -1;
        boolean parentExtended = false;
        for (Iterator<PromptShape> it = steps.descendingIterator(); it.hasNext(); ) {
            PromptShape p = it.next();
            int shared = current.sharedBlocks(p);
            // The previous prompt's last partial block is never compared: only whole blocks are cached.
            boolean extended = shared >= p.blocks();
            boolean better = parent == null
                    || (extended && (!parentExtended || p.blocks() > parent.blocks()))
                    || (!extended && !parentExtended && shared > parentShared);
            if (better) {
                parent = p;
                parentShared = shared;
                parentExtended = extended;
            }
        }
        if (parent == null) {
            return Comparison.FIRST;
        }
        int sharedChars = parentShared * PromptShape.BLOCK_CHARS;
        int sharedTokens = PromptShape.tokensForChars(sharedChars);
        if (parentExtended) {
            return new Comparison(sharedTokens, Optional.empty(), false);
        }
        if (parentShared < SIDE_REQUEST_MAX_SHARE * parent.blocks()) {
            return new Comparison(sharedTokens, Optional.empty(), true);
        }
        return new Comparison(sharedTokens, Optional.of(new PrefixBreak(sharedChars, sharedTokens,
                current.segmentAt(sharedChars), parent.estimatedTokens())), false);
    }
}
