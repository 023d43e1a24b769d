package io.lmwarden.router.placement.admission;

import io.lmwarden.router.placement.prefix.PrefixIndexes;
import io.lmwarden.router.session.RequestFacts;

/**
 * The KV blocks a session keeps on its home replica between steps: the chained block hashes of its
 * last prompt (shared with other sessions where the prefixes are equal, e.g. a common system prompt)
 * plus the blocks its reply will add, which are its own.
 *
 * @param blockHashes   the prompt's chained block hashes, the same keys the prefix index uses
 * @param privateBlocks blocks of the reply (from {@code max_tokens}), never shared
 */
public record WorkingSet(long[] blockHashes, int privateBlocks) {

    /** A reply without max_tokens is budgeted at a typical agent step's 256 tokens. */
    static final int DEFAULT_REPLY_TOKENS = 256;

    public static WorkingSet of(RequestFacts facts) {
        int reply = facts.maxTokens() > 0 ? facts.maxTokens() : DEFAULT_REPLY_TOKENS;
        return new WorkingSet(facts.shape().blockHashes(), (reply + PrefixIndexes.TOKENS_PER_BLOCK - 1) / PrefixIndexes.TOKENS_PER_BLOCK);
    }

    /** The same prompt with its reply budgeted at no more than {@code replyTokens} (this one when that is no smaller). */
    WorkingSet withReplyAtMost(int replyTokens) {
        int blocks = (Math.max(1, replyTokens) + PrefixIndexes.TOKENS_PER_BLOCK - 1) / PrefixIndexes.TOKENS_PER_BLOCK;
        return blocks < privateBlocks ? new WorkingSet(blockHashes, blocks) : this;
    }

    public int blocks() {
        return blockHashes.length + privateBlocks;
    }
}
