package io.lmwarden.router.session;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keys conversations that carry no session key by their lineage. A follow-up step re-sends the
 * previous step's prompt (plus its reply and a new turn), so it is recognised by the longest earlier
 * prompt it begins with, cut at a message boundary: it continues that prompt's conversation. Two
 * conversations that share a start are one while they are identical (the same prompt again is the
 * same conversation) and separate once they diverge: when a conversation has already moved past the
 * prompt a step re-sends, the step forks a conversation of its own. So sessions started from one
 * template (the same system prompt, tools and first message) share a key for their first step only.
 * Bounded: beyond {@code maxPrompts} remembered prompts the least recently used go.
 */
public final class ConversationLineages {

    /** One conversation: its key and the prompt of its latest step. */
    private static final class Lineage {
        final String key;
        long tip;

        Lineage(String key, long tip) {
            this.key = key;
            this.tip = tip;
        }
    }

    /** Prompts of keyless conversations kept to recognise their next steps by (≈ 100 B each). */
    public static final int PROMPTS_REMEMBERED = 65_536;

    private final LinkedHashMap<Long, Lineage> byPrompt;
    private long started;

    public ConversationLineages(int maxPrompts) {
        this.byPrompt = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Lineage> eldest) {
                return size() > maxPrompts;
            }
        };
    }

    /**
     * @param turnHashes hashes of the canonical prompt through each message, in order (the last is the whole prompt)
     * @return the conversation's key
     */
    public synchronized String keyOf(long[] turnHashes) {
        if (turnHashes.length == 0) {
            throw new IllegalArgumentException("a conversation has at least one message");
        }
        long whole = turnHashes[turnHashes.length - 1];
        for (int i = turnHashes.length - 1; i >= 0; i--) {
            Lineage parent = byPrompt.get(turnHashes[i]);
            if (parent == null) {
                continue;
            }
            if (parent.tip == turnHashes[i]) {
                // The conversation's latest prompt, again (i = last) or extended by this step.
                parent.tip = whole;
                byPrompt.put(whole, parent);
                return parent.key;
            }
            // The conversation went on past this prompt along another branch: this is another conversation now.
            return begin(whole);
        }
        return begin(whole);
    }

    private String begin(long whole) {
        long n = ++started;
        Lineage l = new Lineage(String.format("ln-%016x", whole ^ (n * 0x9E3779B97F4A7C15L)), whole);
        byPrompt.put(whole, l);
        return l.key;
    }
}
