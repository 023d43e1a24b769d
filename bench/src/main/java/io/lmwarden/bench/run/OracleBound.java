package io.lmwarden.bench.run;

/**
 * What perfect placement without eviction could serve from the prefix cache: the previous step's
 * whole prompt and reply for a follow-up step, the shared system prompt for a first step (once some
 * session has sent it). Counted in whole KV blocks, as the engine caches them, and never the last
 * prompt token, which the engine always computes.
 */
public final class OracleBound {

    /** vLLM's default KV block size in tokens. */
    public static final int BLOCK_TOKENS = 16;

    private OracleBound() {
    }

    public static int firstStep(int promptTokens, int systemTokens, boolean systemPromptSeen) {
        return systemPromptSeen ? blocks(Math.min(systemTokens, promptTokens - 1)) : 0;
    }

    public static int followUp(int promptTokens, int previousPromptTokens, int previousOutputTokens) {
        return blocks(Math.min(promptTokens - 1, previousPromptTokens + previousOutputTokens));
    }

    private static int blocks(int tokens) {
        return Math.max(0, tokens / BLOCK_TOKENS * BLOCK_TOKENS);
    }
}
