package io.lmwarden.router.diagnostics;

import io.lmwarden.router.session.PromptSegment;
import io.lmwarden.router.session.PromptShape;
import io.lmwarden.router.session.PromptText;

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
 * share the conversation's id with their own system prompt and tools. A step's lineage parent is the
 * recent step of the session whose prompt it extends (or, failing that, shares most with). A step that
 * extends its parent is growth. A step that parts from it before the conversation starts (in the system
 * prompt or the tools) and does not carry the parent's first user turn either is another conversation
 * under the same id and never a break: a side request when it is the smaller of the two, else the main
 * conversation starting after a side request that came first. So side requests are told by what they are,
 * not by how little they share. Any other shortfall is a break, reported with its position, segment and the
 * first characters of the text that changed: the earliest breaks cost the most (everything after them is
 * computed again on every step).
 */
public final class PrefixBreakDetector {

    /** Sessions whose recent prompt shapes are kept for the comparison (≈ 8 B per 16 tokens each). */
    public static final int SESSIONS_KEPT = 4096;
    /** Steps of a session kept to find lineage parents among. */
    static final int STEPS_REMEMBERED = 8;
    /** Characters of a break's text that are shown: the block where the prompts part (about 16 tokens). */
    static final int BREAK_TEXT_CHARS = PromptShape.BLOCK_CHARS;

    /** How a step relates to its lineage parent. */
    public record Comparison(int sharedPrefixTokens, Optional<PrefixBreak> prefixBreak, boolean sideRequest) {
        static final Comparison FIRST = new Comparison(0, Optional.empty(), false);
    }

    /** A remembered step: its blocks, and a hash of its first user turn's text alone (0 without one). */
    private record Step(PromptShape shape, long firstUserTurn) {
    }

    private final LinkedHashMap<String, Deque<Step>> recent;

    public PrefixBreakDetector(int maxSessions) {
        this.recent = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Deque<Step>> eldest) {
                return size() > maxSessions;
            }
        };
    }

    /**
     * Compares with the step's lineage parent and remembers this one; call in arrival order. {@code text} is the
     * step's canonical prompt, read for the first user turn's hash and a break's excerpt (hashes alone are kept).
     */
    public Comparison compare(String sessionKey, PromptShape current, PromptText text) {
        PromptSegment firstUser = current.firstUserMessage();
        Step step = new Step(current, firstUser == null ? 0 : text.hashOf(firstUser.textStartChar(), current.endOf(firstUser)));
        Comparison c;
        synchronized (this) {
            Deque<Step> steps = recent.computeIfAbsent(sessionKey, k -> new ArrayDeque<>());
            c = compareWithParent(steps, step);
            steps.addLast(step);
            if (steps.size() > STEPS_REMEMBERED) {
                steps.removeFirst();
            }
        }
        // The excerpt is taken outside the lock: only this step's own text is read.
        return c.prefixBreak().map(b -> new Comparison(c.sharedPrefixTokens(),
                Optional.of(new PrefixBreak(b.atChar(), b.atToken(), b.segment(), b.charInSegment(),
                        text.excerpt(b.atChar(), BREAK_TEXT_CHARS), b.previousTokens())), false)).orElse(c);
    }

    private static Comparison compareWithParent(Deque<Step> steps, Step currentStep) {
        PromptShape current = currentStep.shape();
        Step parent = null;
        int parentShared = -1;
        boolean parentExtended = false;
        for (Iterator<Step> it = steps.descendingIterator(); it.hasNext(); ) {
            Step s = it.next();
            PromptShape p = s.shape();
            int shared = current.sharedBlocks(p);
            // The previous prompt's last partial block is never compared: only whole blocks are cached.
            boolean extended = shared >= p.blocks();
            boolean better = parent == null
                    || (extended && (!parentExtended || p.blocks() > parent.shape().blocks()))
                    || (!extended && !parentExtended && shared > parentShared);
            if (better) {
                parent = s;
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
        PromptSegment firstUser = current.firstUserMessage();
        boolean beforeConversation = firstUser == null || sharedChars < firstUser.startChar();
        if (beforeConversation && currentStep.firstUserTurn() != parent.firstUserTurn()) {
            // Another conversation under the same id. The smaller is the side request (a title, a sub-agent's task); a
            // larger one that arrives after it is the conversation itself starting (opencode sends its title first).
            return new Comparison(sharedTokens, Optional.empty(), current.chars() <= parent.shape().chars());
        }
        PromptSegment at = current.segmentContaining(sharedChars);
        String segment = at == null ? "prompt" : at.name();
        int charInSegment = at == null ? sharedChars : Math.max(0, sharedChars - at.textStartChar());
        return new Comparison(sharedTokens, Optional.of(new PrefixBreak(sharedChars, sharedTokens, segment, charInSegment, "",
                parent.shape().estimatedTokens())), false);
    }
}
