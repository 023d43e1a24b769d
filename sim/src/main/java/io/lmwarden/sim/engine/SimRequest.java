package io.lmwarden.sim.engine;

import java.util.Arrays;

/**
 * One request inside the engine. Its whole token sequence (prompt and the output it will produce) is known
 * up front because the output is deterministic filler, so block hashes of generated tokens are the ones a
 * later prompt that re-sends the reply will produce.
 */
public final class SimRequest {
    /** LOADING is vLLM's WAITING_FOR_REMOTE_KVS: blocks allocated, its prefix being copied in from the host tier. */
    enum Status { WAITING, LOADING, RUNNING, FINISHED }

    final long id;
    final int[] tokens;
    final int promptLen;
    final int targetOutput;
    final boolean stopsAtMaxTokens;
    final RequestListener listener;
    final double arrival;
    final long[] blockHashes;
    /** vLLM's cache_salt (null = none): part of the first block's extra keys in KV events. */
    final String cacheSalt;
    /** The LoRA adapter the request runs under, or null for the base model: its name is in every block's hash. */
    final io.lmwarden.sim.lora.Adapter lora;
    /** Whether the scheduler ever skipped it because its adapter had no free slot in the batch (vLLM's max_loras). */
    boolean waitedForLoraSlot;
    /** vLLM's request priority (lower first; 0 when the client sent none): orders the queue under the priority policy. */
    int priority;

    Status status = Status.WAITING;
    int numComputed;
    int numOutput;
    int cachedTokens = -1;
    int[] blocks = new int[8];
    int numBlocks;
    int numCachedBlocks;
    double firstScheduled = -1;
    double firstTokenTime = -1;
    double lastTokenTime = -1;
    long lastFlushNanos;
    /** Tokens the last admission took from the host tier (vLLM's num_external_computed_tokens). */
    int externalTokens;
    /** Simulated time the host-tier load of a LOADING request completes. */
    double loadReadyAt = -1;
    /** Blocks [loadFrom, loadTo) being loaded from the host tier (pinned there until the load completes). */
    int loadFrom;
    int loadTo;
    /** Prompt blocks before this index were already offered to the host tier (vLLM's _next_stored_block_idx). */
    int offloadedBlocks;

    SimRequest(long id, int[] promptTokens, int[] outputTokens, boolean stopsAtMaxTokens, int blockSize, String cacheSalt,
               io.lmwarden.sim.lora.Adapter lora, RequestListener listener, double arrival) {
        this.id = id;
        this.promptLen = promptTokens.length;
        this.targetOutput = outputTokens.length;
        this.tokens = Arrays.copyOf(promptTokens, promptLen + targetOutput);
        System.arraycopy(outputTokens, 0, tokens, promptLen, targetOutput);
        this.stopsAtMaxTokens = stopsAtMaxTokens;
        this.listener = listener;
        this.arrival = arrival;
        this.cacheSalt = cacheSalt;
        this.lora = lora;
        this.blockHashes = BlockHasher.chain(tokens, blockSize, BlockHasher.saltOf(cacheSalt), lora == null ? 0 : lora.hashKey());
    }

    /** Tokens the engine must have computed before it can sample the next one. */
    int numTokens() {
        return promptLen + numOutput;
    }

    void addBlock(int block) {
        if (numBlocks == blocks.length) {
            blocks = Arrays.copyOf(blocks, numBlocks * 2);
        }
        blocks[numBlocks++] = block;
    }
}
