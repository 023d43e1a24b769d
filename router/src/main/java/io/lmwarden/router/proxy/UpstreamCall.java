package io.lmwarden.router.proxy;

import io.lmwarden.router.placement.reservation.Reservation;
import io.lmwarden.router.pool.Refusals;
import io.lmwarden.router.pool.ReplicaAddress;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;

import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One attempt's request to its replica: connect, copy the headers, send the body, read the status, each step a
 * future and each failure named by its {@link FailureKind} (as vertx-http-proxy's {@code ReverseProxy} chains
 * them). The original bytes and headers go upstream unchanged but for hop-by-hop headers, {@code Host},
 * {@code Accept-Encoding} and the data-parallel rank, which the router sets itself.
 */
final class UpstreamCall {

    /** Why an attempt produced no answer to relay. */
    static final class Failed extends RuntimeException {
        final FailureKind kind;
        /** Refused: nothing listens there, so the replica leaves rotation at once. */
        final boolean refused;

        Failed(FailureKind kind, String detail, boolean refused) {
            super(detail, null, false, false);
            this.kind = kind;
            this.refused = refused;
        }
    }

    /** The router sets these itself on the upstream request. */
    private static final Set<String> REQUEST_HEADERS_SET_HERE = HopByHopHeaders.names("host", "content-length", "accept-encoding",
            DataParallelRank.HEADER);

    private final ProxyContext ctx;

    UpstreamCall(ProxyContext ctx) {
        this.ctx = ctx;
    }

    /**
     * @param stillWanted false once the exchange is over or has moved on to another attempt: the request is then not sent
     * @param sending     the upstream request, once there is one, so the exchange can cancel it
     * @param mayRetry    whether a 502/503/504 should fail the attempt (another replica will be tried) rather than be relayed
     */
    Future<HttpClientResponse> send(Reservation r, HttpServerRequest request, Buffer body, BooleanSupplier stillWanted,
                                    Consumer<HttpClientRequest> sending, BooleanSupplier mayRetry) {
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST)
                .setConnectTimeout(ctx.acquireTimeout().toMillis());
        ReplicaAddress to = r.replicaAddress();
        if (to == null) {
            opts.setAbsoluteURI(r.replicaUrl() + RequestTarget.originForm(request));
        } else {
            // What setAbsoluteURI would set, without parsing the replica's URL again for every request.
            opts.setHost(to.host()).setPort(to.port()).setSsl(to.ssl()).setURI(to.pathPrefix() + RequestTarget.originForm(request));
        }
        return ctx.client().request(opts)
                .recover(err -> Future.failedFuture(connectFailure(r, err)))
                .compose(req -> {
                    if (!stillWanted.getAsBoolean()) {
                        req.reset();
                        return Future.failedFuture(new Failed(FailureKind.SEND, "client left before the request was sent", false));
                    }
                    sending.accept(req);
                    MultiMap headers = req.headers();
                    HopByHopHeaders.copy(request.headers(), headers, REQUEST_HEADERS_SET_HERE);
                    headers.set("X-Forwarded-For", request.remoteAddress() == null ? "" : request.remoteAddress().hostAddress());
                    headers.set("X-Forwarded-Proto", request.scheme() == null ? "http" : request.scheme());
                    DataParallelRank.apply(r, headers);
                    r.sent(System.nanoTime());
                    return req.send(body).recover(err -> Future.failedFuture(new Failed(FailureKind.SEND, err.toString(), false)));
                })
                .compose(up -> {
                    FailureKind kind = FailureKind.ofUpstreamStatus(up.statusCode());
                    if (kind != null && mayRetry.getAsBoolean()) {
                        // Overloaded, draining or a broken gateway: nothing reached the client yet, so try elsewhere.
                        up.body();
                        return Future.failedFuture(new Failed(kind, "replica answered " + up.statusCode(), false));
                    }
                    return Future.succeededFuture(up);
                });
    }

    /**
     * A connection that could not be had: the replica's fault only when the router had sockets to spare
     * and the replica's pool was not at its cap.
     */
    private Failed connectFailure(Reservation r, Throwable err) {
        if (UpstreamErrors.outOfLocalSockets(err)) {
            return new Failed(FailureKind.ROUTER_SOCKETS, "the router is out of sockets (" + err.getMessage() + ")", false);
        }
        int cap = ctx.upstream().maxConnectionsPerReplica();
        int open = ctx.pool().get(r.replicaId()).map(s -> s.inFlight()).orElse(0);
        if (open > cap || UpstreamErrors.poolBusy(err) && open >= cap) {
            return new Failed(FailureKind.CONNECTION_CAP, "replica " + r.replicaId() + " has all its " + cap
                    + " connections in use (maxConnectionsPerReplica) and none came free within "
                    + ctx.acquireTimeout().toMillis() + " ms", false);
        }
        return new Failed(FailureKind.CONNECT, err.toString(), Refusals.refused(err));
    }
}
