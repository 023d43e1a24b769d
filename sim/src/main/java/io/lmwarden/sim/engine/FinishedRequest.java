package io.lmwarden.sim.engine;

/** The outcome of one request: token counts and why it ended ("stop", "length" or "abort"). */
public record FinishedRequest(int promptTokens, int cachedTokens, int outputTokens, String finishReason) {
}
