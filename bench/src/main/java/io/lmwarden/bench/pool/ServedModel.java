package io.lmwarden.bench.pool;

/**
 * The model the load asks for and its context window.
 *
 * @param contextWindow {@code max_model_len} in tokens as {@code /v1/models} gives it (vLLM and the simulator do), or
 *                      {@code --context-window}; 0 when unknown
 */
public record ServedModel(String name, int contextWindow) {
}
