package io.lmwarden.router.proxy;

import io.lmwarden.common.api.ApiDialect;
import io.lmwarden.router.session.MalformedRequestException;
import io.lmwarden.router.session.RequestFacts;
import io.lmwarden.router.session.RequestFactsReader;
import io.lmwarden.router.session.Tenant;
import io.lmwarden.router.tenant.CacheSaltWriter;
import io.lmwarden.router.tenant.TenantResolver;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * Entry of every inference request: names its tenant, reads the facts placement needs from the
 * buffered body, answers malformed input in the API's own shape, sets the tenant's
 * {@code cache_salt}, and starts the exchange.
 */
public final class ProxyHandler {

    private final ProxyContext ctx;
    private final RequestFactsReader reader;
    private final TenantResolver tenants;

    public ProxyHandler(ProxyContext ctx, RequestFactsReader reader, TenantResolver tenants) {
        this.ctx = ctx;
        this.reader = reader;
        this.tenants = tenants;
    }

    public void handle(RoutingContext rc, ApiDialect dialect) {
        long received = rc.get(RouterTimestamps.RECEIVED_AT_NANOS, System.nanoTime());
        Buffer body = rc.body().buffer();
        if (body == null || body.length() == 0) {
            badRequest(rc, dialect, "request body is empty; send a JSON object");
            return;
        }
        Tenant tenant = tenants.resolve(name -> rc.request().getHeader(name));
        byte[] bytes = body.getBytes();
        RequestFacts facts;
        try {
            facts = reader.read(dialect, bytes, name -> rc.request().getHeader(name), tenant);
        } catch (MalformedRequestException e) {
            badRequest(rc, dialect, e.getMessage());
            return;
        }
        // Pinned under the model the name serves: a session that switches between two aliases keeps its home.
        facts = facts.withModelKey(ctx.pool().modelKey(facts.model()));
        if (ctx.pool().isAdapter(facts.model())) {
            // A LoRA adapter is a cache identity of its own: its prefix keys never match another's.
            facts = facts.asAdapter();
        }
        Buffer upstreamBody = tenant.present() ? Buffer.buffer(CacheSaltWriter.apply(bytes, facts.cacheSaltSpans(), tenant.cacheSalt())) : body;
        TokenIds ids = TokenIds.NONE;
        if (ctx.askTokenIds().getAsBoolean() && (dialect == ApiDialect.OPENAI_CHAT || dialect == ApiDialect.OPENAI_COMPLETIONS)) {
            byte[] asked = TokenIdsRequest.ask(upstreamBody.getBytes());
            if (asked != null) {
                upstreamBody = Buffer.buffer(asked);
                ids = TokenIds.ASKED_BY_ROUTER;
            } else if (TokenIdsRequest.mentioned(bytes)) {
                ids = TokenIds.ASKED_BY_CLIENT;
            }
        }
        ctx.metrics().sessionKeySource(facts.sessionKey().source().label());
        new ProxyExchange(ctx, rc.request(), facts, upstreamBody, received, ids).start();
    }

    /** Whether the answer carries the prompt's token ids, and who asked for them (the router takes its own out). */
    enum TokenIds { NONE, ASKED_BY_CLIENT, ASKED_BY_ROUTER }

    private void badRequest(RoutingContext rc, ApiDialect dialect, String message) {
        ctx.metrics().error("bad_request");
        rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(ApiErrors.body(dialect, 400, message));
    }
}
