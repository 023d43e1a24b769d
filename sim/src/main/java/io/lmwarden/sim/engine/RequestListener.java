package io.lmwarden.sim.engine;

/** Receives one request's progress. Called on the engine thread: implementations must only hand off. */
public interface RequestListener {
    /** {@code generated} output tokens exist now ({@code cachedTokens} of the prompt came from the prefix cache); {@code first} is true exactly once, at the first token. */
    void onTokens(int generated, int cachedTokens, boolean first);

    void onFinished(FinishedRequest result);
}
