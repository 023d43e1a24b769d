package io.lmwarden.sim.http;

import io.lmwarden.sim.engine.FinishedRequest;

import java.util.List;

/** How one API family lays out a generated reply, streaming (SSE events) and not. */
interface ReplyFormat {
    /** Events carrying the first token(s), with whatever opening events the API sends before them. */
    List<String> first(String text, int promptTokens, int cachedTokens);

    List<String> delta(String text);

    /** The remaining text (maybe empty), the finish reason, usage, and the terminator. */
    List<String> finish(String text, FinishedRequest result);

    /** The whole non-streaming response body. */
    String complete(String text, FinishedRequest result);

    static String sse(String data) {
        return "data: " + data + "\n\n";
    }

    static String sse(String event, String data) {
        return "event: " + event + "\ndata: " + data + "\n\n";
    }
}
