package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.session.PromptShape;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the engine's block keys of a prompt are, learned from the token ids the engine returned for it
 * ({@code return_token_ids}), by the prompt's text. Each entry is filed under the router's hash of the prompt's last
 * full text block ({@link PromptShape#blockHashes}), so a later prompt that starts with that text (the session's next
 * step re-sends it; another session with the same first message sends it whole) finds the keys of its beginning by
 * its own block hashes, keyed session or not. The keys cover the earlier prompt only: what the new prompt adds is
 * not keyed, and is not cached anywhere either except as the engine's own output.
 * <p>
 * Bounded by the keys it holds in all ({@code maxKeys}, 8 bytes each), least recently used first; a session keeps
 * only its latest entry besides its first (first steps are where other sessions' prompts meet it).
 */
public final class TokenKeyDictionary {

    /** The keys of one prompt: block keys in order, the engine's block size, and its exact prompt length in tokens. */
    public record Entry(long[] blockKeys, int blockSize, int promptTokens, int textBlocks) {
    }

    /** A match: the entry, and whether it is the whole prompt asked about (same text) or a beginning of it. */
    public record Match(Entry entry, boolean wholePrompt) {
    }

    /** Sessions whose entries are tracked (their first and latest); beyond it the least recently active is forgotten. */
    static final int SESSIONS_TRACKED = 100_000;

    private final long maxKeys;
    private final LinkedHashMap<Long, Entry> byText = new LinkedHashMap<>(1024, 0.75f, true);
    /** Per session: the text hash of its first entry and of its latest. */
    private final LinkedHashMap<String, long[]> bySession = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
            return size() > SESSIONS_TRACKED;
        }
    };
    private long keys;

    public TokenKeyDictionary(long maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** Files the keys of a prompt the engine accepted, for the session it belongs to. */
    public synchronized void learn(String session, PromptShape shape, Entry entry) {
        int full = Math.min(shape.blockHashes().length, shape.chars() / PromptShape.BLOCK_CHARS);
        if (full == 0 || entry.blockKeys().length == 0) {
            return;
        }
        long text = shape.blockHashes()[full - 1];
        put(text, new Entry(entry.blockKeys(), entry.blockSize(), entry.promptTokens(), full));
        long[] firstAndLatest = bySession.get(session);
        if (firstAndLatest == null) {
            bySession.put(session, new long[]{text, text});
            return;
        }
        long previous = firstAndLatest[1];
        firstAndLatest[1] = text;
        if (previous != text && previous != firstAndLatest[0]) {
            remove(previous); // superseded: the new entry starts with it
        }
    }

    /**
     * The longest learned prompt this one starts with, or null. {@code wholePrompt}: no full text block follows the
     * match, so this is the learned prompt again (up to its last partial block), and the engine's cap applies.
     */
    public synchronized Match find(PromptShape shape) {
        long[] hashes = shape.blockHashes();
        int full = Math.min(hashes.length, shape.chars() / PromptShape.BLOCK_CHARS);
        for (int b = full - 1; b >= 0; b--) {
            Entry e = byText.get(hashes[b]);
            if (e != null && e.textBlocks() == b + 1) {
                return new Match(e, b == full - 1);
            }
        }
        return null;
    }

    public synchronized int entries() {
        return byText.size();
    }

    public synchronized long keys() {
        return keys;
    }

    private void put(long text, Entry e) {
        Entry old = byText.put(text, e);
        if (old != null) {
            keys -= old.blockKeys().length;
        }
        keys += e.blockKeys().length;
        for (Iterator<Map.Entry<Long, Entry>> it = byText.entrySet().iterator(); keys > maxKeys && it.hasNext(); ) {
            Map.Entry<Long, Entry> eldest = it.next();
            if (eldest.getKey() == text) {
                continue;
            }
            keys -= eldest.getValue().blockKeys().length;
            it.remove();
        }
    }

    private void remove(long text) {
        Entry old = byText.remove(text);
        if (old != null) {
            keys -= old.blockKeys().length;
        }
    }
}
