package io.lmwarden.bench.client;

/**
 * Reads the data lines of one SSE stream and keeps only what the measurement needs: reply text,
 * token usage, the completion marker and an error, if any.
 */
public interface StreamInterpreter {

    /** Handles one SSE {@code data:} payload; returns true if it carried generated text. */
    boolean onData(String data);

    String replyText();

    /** Output tokens reported by the engine, or -1 when the stream did not report usage. */
    int outputTokens();

    /** Prompt tokens reported by the engine, or -1. */
    int promptTokens();

    /** Prompt tokens served from the engine's prefix cache, or -1. */
    int cachedTokens();

    /** The stream ended with its proper marker ({@code message_stop} / {@code [DONE]}). */
    boolean completed();

    /** An error the stream reported, or null. */
    String error();

    /** The stream ended with an "overloaded" error: Anthropic's overloaded_error, or an OpenAI error with code 429. */
    boolean overloaded();
}
