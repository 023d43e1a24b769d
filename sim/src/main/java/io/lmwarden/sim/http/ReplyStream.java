package io.lmwarden.sim.http;

import io.lmwarden.sim.engine.Engine;
import io.lmwarden.sim.engine.FinishedRequest;
import io.lmwarden.sim.engine.RequestListener;
import io.lmwarden.sim.engine.SimRequest;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Carries one request's output from the engine thread to its HTTP response on the request's Vert.x context.
 * Streaming replies write each SSE event as it comes; a client that goes away aborts the engine request.
 */
final class ReplyStream implements RequestListener {
    private static final Pattern COMPACT_FIELD = Pattern.compile("(?m)^(data|event): ");
    private final Context context;
    private final HttpServerRequest httpRequest;
    private final HttpServerResponse response;
    private final ReplyFormat format;
    private final String text;
    private final boolean streaming;
    private final int promptTokens;
    private final int dropAfterChunks;
    private final boolean compactSse;
    /** Holds a stream's end until released (fault injection), or null: the end goes right after the last event. */
    private final Consumer<Runnable> endGate;
    private Engine engine;
    private SimRequest request;
    private int sentTokens;
    private int chunks;
    private boolean done;

    ReplyStream(Context context, HttpServerRequest httpRequest, ReplyFormat format, String text, boolean streaming,
                int promptTokens, int dropAfterChunks, boolean compactSse, Consumer<Runnable> endGate) {
        this.context = context;
        this.httpRequest = httpRequest;
        this.response = httpRequest.response();
        this.format = format;
        this.text = text;
        this.streaming = streaming;
        this.promptTokens = promptTokens;
        this.dropAfterChunks = dropAfterChunks;
        this.compactSse = compactSse;
        this.endGate = endGate;
    }

    /** Called on the request's context right after submission. */
    void attach(Engine engine, SimRequest request) {
        this.engine = engine;
        this.request = request;
        response.closeHandler(v -> abort());
        if (response.closed()) {
            // The client left while the request was stalled by fault injection.
            abort();
            return;
        }
        if (streaming) {
            response.setChunked(true);
            response.putHeader("content-type", "text/event-stream; charset=utf-8");
            response.putHeader("cache-control", "no-cache");
            if (dropAfterChunks == 0) {
                drop();
            } else {
                response.writeHead();
            }
        } else if (dropAfterChunks >= 0) {
            drop();
        }
    }

    @Override
    public void onTokens(int generated, int cachedTokens, boolean first) {
        if (!streaming) {
            return;
        }
        context.runOnContext(v -> {
            if (done || generated <= sentTokens) {
                return;
            }
            String piece = text.substring(sentTokens * 4, generated * 4);
            boolean opening = sentTokens == 0;
            sentTokens = generated;
            write(opening ? format.first(piece, promptTokens, cachedTokens) : format.delta(piece));
        });
    }

    @Override
    public void onFinished(FinishedRequest result) {
        context.runOnContext(v -> {
            if (done) {
                return;
            }
            if (!streaming) {
                done = true;
                response.putHeader("content-type", "application/json").end(format.complete(text, result));
                return;
            }
            if (sentTokens == 0) {
                sentTokens = result.outputTokens();
                if (!write(format.first(text, promptTokens, result.cachedTokens()))) {
                    return;
                }
                write(format.finish("", result));
            } else {
                String rest = text.substring(sentTokens * 4, result.outputTokens() * 4);
                sentTokens = result.outputTokens();
                write(format.finish(rest, result));
            }
            if (!done) {
                done = true;
                if (endGate == null) {
                    response.end();
                } else {
                    endGate.accept(() -> context.runOnContext(e -> {
                        if (!response.closed()) {
                            response.end();
                        }
                    }));
                }
            }
        });
    }

    /** Writes events one by one; false once the connection was dropped by fault injection or the client. */
    private boolean write(List<String> events) {
        for (String event : events) {
            // SSE makes the space after "data:" and "event:" optional; some servers leave it out.
            String e = compactSse ? COMPACT_FIELD.matcher(event).replaceAll("$1:") : event;
            if (done) {
                return false;
            }
            chunks++;
            if (dropAfterChunks >= 0 && chunks >= dropAfterChunks) {
                // Close only once the K-th event is on the wire, so the client sees exactly K.
                response.write(e).onComplete(ar -> drop());
                done = true;
                return false;
            }
            response.write(e);
        }
        return true;
    }

    private void drop() {
        done = true;
        // Synchronous on the engine: the request is aborted before the client can notice the close.
        engine.abort(request);
        httpRequest.connection().close();
    }

    private void abort() {
        if (!done) {
            done = true;
            engine.abort(request);
        }
    }
}
