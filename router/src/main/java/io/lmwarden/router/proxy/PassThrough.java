package io.lmwarden.router.proxy;

import io.lmwarden.router.pool.ReplicaView;
import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.RoutingContext;

import java.util.Comparator;
import java.util.Set;

/**
 * Small requests that need no placement ({@code GET /v1/models}, {@code POST /tokenize},
 * {@code POST /v1/messages/count_tokens}): answered by the ready replica with the fewest requests in
 * flight, response buffered. They leave no trace in placement state, pins or diagnostics: nothing
 * of them stays in an engine's cache.
 */
public final class PassThrough {

    private static final Set<String> SET_HERE = HopByHopHeaders.names("host", "content-length", "accept-encoding", DataParallelRank.HEADER);

    private static final Set<String> RESPONSE_SET_HERE = HopByHopHeaders.names("content-length");

    private final ProxyContext ctx;

    public PassThrough(ProxyContext ctx) {
        this.ctx = ctx;
    }

    public void handle(RoutingContext rc) {
        handle(rc, null);
    }

    /** @param dialect the API whose error shape a failure takes; null for the engine's own endpoints */
    public void handle(RoutingContext rc, ApiDialect dialect) {
        ReplicaView target = ctx.snapshot().apply(System.nanoTime()).ready().stream()
                .min(Comparator.comparingInt(ReplicaView::inFlight)).orElse(null);
        if (target == null) {
            rc.response().setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(dialect, 503, "no ready replica; retry later"));
            return;
        }
        Buffer body = rc.body() == null || rc.body().buffer() == null ? Buffer.buffer() : rc.body().buffer();
        // HEAD is answered as GET without its body (the engine may not serve HEAD; Vert.x drops a HEAD response's body).
        HttpMethod method = rc.request().method() == HttpMethod.HEAD ? HttpMethod.GET : rc.request().method();
        // Bounded like every proxied request (streamIdleTimeout): a replica that accepts the request and stays silent
        // gets the client a 504 naming it, never an answer that does not come.
        RequestOptions opts = new RequestOptions().setMethod(method)
                .setAbsoluteURI(target.url() + RequestTarget.originForm(rc.request()))
                .setConnectTimeout(ctx.acquireTimeout().toMillis())
                .setIdleTimeout(ctx.upstream().streamIdleTimeout().toMillis());
        ctx.client().request(opts)
                .compose(req -> {
                    HopByHopHeaders.copy(rc.request().headers(), req.headers(), SET_HERE);
                    return req.send(body);
                })
                .compose(resp -> resp.body().map(b -> {
                    rc.response().setStatusCode(resp.statusCode());
                    HopByHopHeaders.copy(resp.headers(), rc.response().headers(), RESPONSE_SET_HERE);
                    rc.response().putHeader("X-LMW-Replica", target.id());
                    return b;
                }))
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        rc.response().end(ar.result());
                    } else if (!rc.response().headWritten()) {
                        boolean silent = ar.cause() instanceof java.util.concurrent.TimeoutException;
                        int status = silent ? 504 : 502;
                        rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                                .end(ApiErrors.body(dialect, status, silent
                                        ? "replica " + target.id() + " did not answer within streamIdleTimeout ("
                                        + ctx.upstream().streamIdleTimeout().toSeconds() + " s)"
                                        : "replica " + target.id() + " failed: " + ar.cause().getMessage()));
                    }
                });
    }
}
