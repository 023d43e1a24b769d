package io.lmwarden.bench.trace;

/**
 * One line of a Mooncake / AIPerf trace.
 *
 * @param line          1-based line number, for messages
 * @param timestampMs   arrival in milliseconds from the trace's start, or -1 when the line has none
 * @param inputLength   prompt tokens
 * @param outputLength  tokens to generate (sent as {@code max_tokens})
 * @param hashIds       the prompt's blocks of the trace's block size: equal ids are equal text, so equal prefixes hit
 * @param sessionId     the conversation the request belongs to, or null for a request of its own
 * @param delayMs       for a session's later turns: milliseconds to wait after the previous turn ended, or -1
 */
public record TraceRequest(int line, double timestampMs, int inputLength, int outputLength, long[] hashIds, String sessionId,
                           double delayMs) {

    public boolean hasTimestamp() {
        return timestampMs >= 0;
    }

    public boolean hasDelay() {
        return delayMs >= 0;
    }
}
