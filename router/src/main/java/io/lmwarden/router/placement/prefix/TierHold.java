package io.lmwarden.router.placement.prefix;

/**
 * How much of a prompt a replica probably holds: the leading tokens in its GPU prefix cache, and the tokens after them
 * that its host-memory KV tier holds (loaded at the tier's bandwidth instead of computed).
 */
public record TierHold(int gpuTokens, int hostTokens) {

    /** Tokens the replica need not compute. */
    public int totalTokens() {
        return gpuTokens + hostTokens;
    }
}
