package io.lmwarden.router.proxy;

import io.lmwarden.router.session.ApiFlavor;
import io.lmwarden.router.session.MalformedRequestException;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.RequestFactsReader;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * Entry of every inference request: reads the facts placement needs from the buffered body, answers
 * malformed input in the API's own shape, and starts the exchange.
 */
public final class ProxyHandler {

    private final ProxyContext ctx;
    private final RequestFactsReader reader;

    public ProxyHandler(ProxyContext ctx, RequestFactsReader reader) {
        this.ctx = ctx;
        this.reader = reader;
    }

    public void handle(RoutingContext rc, ApiFlavor flavor) {
        long received = rc.get(RouterTimestamps.RECEIVED_AT_NANOS, System.nanoTime());
        Buffer body = rc.body().buffer();
        if (body == null || body.length() == 0) {
            badRequest(rc, flavor, "request body is empty; send a JSON object");
            return;
        }
        RequestFacts facts;
        try {
            facts = reader.read(flavor, body.getBytes(), name -> rc.request().getHeader(name));
        } catch (MalformedRequestException e) {
            badRequest(rc, flavor, e.getMessage());
            return;
        }
        ctx.metrics().sessionKeySource(facts.sessionKey().source().label());
        new ProxyExchange(ctx, rc.request(), facts, body, received).start();
    }

    private void badRequest(RoutingContext rc, ApiFlavor flavor, String message) {
        ctx.metrics().error("bad_request");
        rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(ApiErrors.body(flavor, 400, message));
    }
}
