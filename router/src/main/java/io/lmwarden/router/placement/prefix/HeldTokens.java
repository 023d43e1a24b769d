package io.lmwarden.router.placement.prefix;

import io.lmwarden.router.kvevents.CachedPrefix;
import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.kvevents.ReplicaCacheView;
import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.router.session.PromptShape;

import java.util.Optional;

/**
 * How much of a prompt a replica holds, from the best source there is: the engine's own events when its view is live
 * and the prompt's block keys are known ({@link TokenKeyDictionary}: the token ids the engine returned for the same
 * beginning), else the router's text-based {@link PrefixIndex}. Every answer says which it was, so that a fallback is
 * visible. Read-only: placement, the cost model and admission may all ask.
 */
public final class HeldTokens {

    /** Where an answer came from. */
    public enum Source {
        /** The engine's KV events: what it really holds. */
        EVENTS,
        /** The router's own prefix index: what it sent there and the engine probably kept. */
        ESTIMATED
    }

    /**
     * @param tokens                   prompt tokens held (under the engine's cap: at least the last one is computed)
     * @param hostTokens               of those, the ones only the host-memory KV tier holds (loaded, not prefilled)
     * @param source                   where the figure came from
     * @param firstMissEvictedAtMillis with events: when the first block not held left that replica's GPU, -1 unknown
     */
    public record Held(int tokens, int hostTokens, Source source, long firstMissEvictedAtMillis) {

        /** Of {@code tokens}, those in the GPU's own prefix cache. */
        public int gpuTokens() {
            return tokens - hostTokens;
        }
    }

    private final PrefixIndexes prefixIndexes;
    private final TokenKeyDictionary dictionary;
    private final EngineCacheViews views;
    /** The last prompt looked up and its match: a placement asks once per candidate replica for the same prompt. */
    private final ThreadLocal<Object[]> lastMatch = ThreadLocal.withInitial(() -> new Object[2]);

    public HeldTokens(PrefixIndexes prefixIndexes, TokenKeyDictionary dictionary, EngineCacheViews views) {
        this.prefixIndexes = prefixIndexes;
        this.dictionary = dictionary;
        this.views = views;
    }

    /** The router's own estimates only: no engine view. */
    public static HeldTokens estimatesOnly(PrefixIndexes prefixIndexes) {
        return new HeldTokens(prefixIndexes, new TokenKeyDictionary(0), EngineCacheViews.off());
    }

    public Held held(ReplicaView replica, PromptShape shape) {
        Optional<ReplicaCacheView> view = views.live(replica.id());
        if (view.isPresent()) {
            TokenKeyDictionary.Match m = match(shape);
            if (m != null && m.entry().blockSize() == view.get().blockSize()) {
                CachedPrefix p = view.get().lookup(m.entry().blockKeys());
                long cap = m.wholePrompt() ? m.entry().promptTokens() : Long.MAX_VALUE;
                long tokens = p.cachedTokens(cap);
                long offloaded = p.offloadedCachedTokens(cap);
                return new Held((int) Math.min(Integer.MAX_VALUE, tokens), (int) Math.min(Integer.MAX_VALUE, offloaded), Source.EVENTS,
                        p.firstMissEvictedAtMillis());
            }
        }
        return prefixIndexes.hold(replica, shape);
    }

    private TokenKeyDictionary.Match match(PromptShape shape) {
        Object[] last = lastMatch.get();
        if (last[0] != shape) {
            last[0] = shape;
            last[1] = dictionary.find(shape);
        }
        return (TokenKeyDictionary.Match) last[1];
    }

    public int heldTokens(ReplicaView replica, PromptShape shape) {
        return held(replica, shape).tokens();
    }

    /** Whether placement may use the engine's events for this replica right now. */
    public boolean eventsLive(String replicaId) {
        return views.live(replicaId).isPresent();
    }
}
