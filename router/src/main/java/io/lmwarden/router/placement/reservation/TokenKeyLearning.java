package io.lmwarden.router.placement.reservation;

import io.lmwarden.router.kvevents.BlockKeys;
import io.lmwarden.router.kvevents.EngineCacheViews;
import io.lmwarden.router.placement.prefix.HeldTokens;
import io.lmwarden.router.placement.prefix.TokenKeyDictionary;
import io.lmwarden.router.session.RequestFacts;

import java.util.Arrays;

/**
 * Files the block keys of each prompt the engine accepted, from the token ids it returned for it
 * ({@code prompt_token_ids}, then the reply's {@code token_ids}), at the block size the replica's events announce and under the request's cache salt
 * (vLLM mixes it into the first block) and, for a LoRA adapter's request, under the adapter's name (vLLM puts it in every
 * block's extra keys, and its events carry it), so that the session's next step, and other sessions that start the same
 * way, can be looked up in the engines' cache views.
 */
public final class TokenKeyLearning implements PlacementFeedback {

    private final TokenKeyDictionary dictionary;
    private final EngineCacheViews views;
    private final HeldTokens heldTokens;
    private final java.util.function.Predicate<String> isAdapter;

    public TokenKeyLearning(TokenKeyDictionary dictionary, EngineCacheViews views, HeldTokens heldTokens) {
        this(dictionary, views, heldTokens, name -> false);
    }

    /** @param isAdapter whether a model name is a LoRA adapter's (the pool's {@code isAdapter}) */
    public TokenKeyLearning(TokenKeyDictionary dictionary, EngineCacheViews views, HeldTokens heldTokens,
                            java.util.function.Predicate<String> isAdapter) {
        this.dictionary = dictionary;
        this.views = views;
        this.heldTokens = heldTokens;
        this.isAdapter = isAdapter;
    }

    /**
     * Notes what the replica holds of the prompt before the engine sees it (for the diagnostics: "evicted at T"), and
     * tells its view that traffic went there: an engine that takes requests publishes events, so a view that stays
     * silent goes stale (see {@code noteTraffic}).
     */
    @Override
    public void placed(Reservation r) {
        if (views.enabled()) {
            r.heldAtPlacement(heldTokens.held(r.placement().replica(), r.facts().shape()));
        }
        views.view(r.replicaId()).ifPresent(v -> v.noteTraffic());
    }

    /**
     * Keys over the prompt and the reply: the engine caches the blocks it generated too, and the session's next step
     * re-sends the reply right after the prompt.
     */
    @Override
    public void tokenIds(Reservation r, int[] prompt, int[] output) {
        if (prompt.length == 0 || !r.accepted()) {
            return;
        }
        int blockSize = views.view(r.replicaId()).map(v -> v.blockSize()).orElse(0);
        if (blockSize <= 0) {
            return;
        }
        int[] ids = Arrays.copyOf(prompt, prompt.length + output.length);
        System.arraycopy(output, 0, ids, prompt.length, output.length);
        RequestFacts f = r.facts();
        String salt = f.tenant().present() ? f.tenant().cacheSalt() : null;
        long[] keys = BlockKeys.chain(BlockKeys.root(isAdapter.test(f.model()) ? f.model() : null, salt), ids, blockSize);
        dictionary.learn(f.modelKey() + "\u0000" + f.sessionKey().value(), f.shape(),
                new TokenKeyDictionary.Entry(keys, blockSize, prompt.length, 0));
    }
}
