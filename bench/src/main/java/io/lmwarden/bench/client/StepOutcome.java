package io.lmwarden.bench.client;

/**
 * What one streamed request did, in wall-clock nanoseconds ({@link System#nanoTime()}).
 *
 * @param replica         the router's {@code X-LMW-Replica}, or null when the target did not say
 * @param decision        the router's {@code X-LMW-Decision}, or null
 * @param firstTokenNanos time of the first streamed text, 0 when none arrived
 * @param outputTokens    engine-reported output tokens, else estimated from the reply text
 * @param promptTokens    engine-reported prompt tokens, or -1
 * @param cachedTokens    engine-reported prefix-cache tokens for this request, or -1
 * @param error           null on success; otherwise what went wrong (status, stream error, cut-off stream)
 * @param queueWaitNanos  how long the router's admission queue held the request (its X-LMW-Queue-Wait-Ms header, or
 *                        the {@code : lmw … queue-wait-ms=} comment of a stream the queue kept alive); 0 when it did not say
 * @param rejected        the router turned the request away as overloaded (429, or Anthropic's 529)
 */
public record StepOutcome(
        String replica,
        String decision,
        long sentNanos,
        long firstTokenNanos,
        long endNanos,
        int outputTokens,
        int promptTokens,
        int cachedTokens,
        String replyText,
        String error,
        long queueWaitNanos,
        boolean rejected) {

    public boolean ok() {
        return error == null;
    }
}
