package io.lmwarden.router.advisor;

/**
 * One step the advisor replays: where it ran, how big its prompt was, what the engine served from cache, and its
 * prompt as chained keys of whole groups of the router's prompt blocks ({@link StepTrace#BLOCKS_PER_KEY} blocks each:
 * key i stands for the prefix up to the end of group i, like vLLM's chained block hashes).
 *
 * @param atMillis     when the router sent it to its replica (epoch ms): after any wait in admission's queue, the order the
 *                     engine saw
 * @param promptTokens the engine's prompt size (the router's estimate when it reported none)
 * @param cachedTokens prompt tokens the engine served from cache, -1 when it reported none
 * @param routerBlocks the router's prompt blocks ({@code PromptShape.BLOCK_CHARS} characters each), partial groups included
 * @param keys         one chained key per whole group of blocks
 * @param replyFrom    where the reply of the step this one continues starts among its keys, when that step ran on the same
 *                     replica (the engine cached the blocks it generated on its GPU), else 0
 * @param replyKeys    how many keys that reply covers (its output tokens over the tokens per key), 0 when none
 */
public record TracedStep(long atMillis, String replica, long promptTokens, long cachedTokens, int routerBlocks, long[] keys,
                         int replyFrom, int replyKeys) {

    /** A step that continues no reply the model can see. */
    public TracedStep(long atMillis, String replica, long promptTokens, long cachedTokens, int routerBlocks, long[] keys) {
        this(atMillis, replica, promptTokens, cachedTokens, routerBlocks, keys, 0, 0);
    }

    boolean inReply(int key) {
        return key >= replyFrom && key < replyFrom + replyKeys;
    }

    /** Engine tokens one key stands for in this step: its prompt spread over its router blocks. */
    double tokensPerKey(int blocksPerKey) {
        return routerBlocks == 0 ? 0 : (double) promptTokens * blocksPerKey / routerBlocks;
    }
}
