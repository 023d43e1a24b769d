package io.lmwarden.router;

import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.edge.ClientConnections;
import io.lmwarden.router.edge.ClientErrors;
import io.lmwarden.router.edge.HeaderDeadline;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

import java.util.concurrent.TimeUnit;

/** The inference port, and the admin port when {@code adminPort} is set: their socket options and guards. */
final class RouterServers {

    private final HttpServer inference;
    private final HttpServer admin;

    private RouterServers(HttpServer inference, HttpServer admin) {
        this.inference = inference;
        this.admin = admin;
    }

    /** Binds the ports; returns once they listen. */
    static RouterServers listen(Vertx vertx, ServerSettings s, ClientConnections connections, RouteTable routes) {
        HttpServer inference = vertx.createHttpServer(options(s).setPort(s.port()).setTcpNoDelay(true).setCompressionSupported(false))
                .connectionHandler(c -> {
                    if (connections.accepted(c)) {
                        HeaderDeadline.install(c, s.headerTimeout());
                    }
                })
                .invalidRequestHandler(ClientErrors::invalidRequest)
                .requestHandler(routes.inference());
        RouterRuntime.await(inference.listen());
        HttpServer admin = null;
        if (s.adminPort().isPresent()) {
            admin = vertx.createHttpServer(options(s).setPort(s.adminPort().getAsInt()))
                    .connectionHandler(c -> HeaderDeadline.install(c, s.headerTimeout()))
                    .invalidRequestHandler(ClientErrors::invalidRequest)
                    .requestHandler(routes.admin());
            RouterRuntime.await(admin.listen());
        }
        return new RouterServers(inference, admin);
    }

    private static HttpServerOptions options(ServerSettings s) {
        return new HttpServerOptions().setHost(s.host())
                // HTTP/1.1 only: with h2c on, Vert.x builds a connection only once its first request's head is in,
                // out of reach of the connection cap and the header deadline.
                .setHttp2ClearTextEnabled(false)
                // Nothing read or written for this long closes the socket: idle or half-sent requests alike.
                .setIdleTimeout((int) s.clientIdleTimeout().toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    }

    int port() {
        return inference.actualPort();
    }

    /** The admin API's port: its own when {@code adminPort} is set, else the inference port. */
    int adminPort() {
        return admin == null ? inference.actualPort() : admin.actualPort();
    }

    /** The admin port's number for the log, empty without one. */
    Object adminPortForLog() {
        return admin == null ? "" : admin.actualPort();
    }

    /** Stops accepting on the inference port; in-flight requests go on until the grace period ends. */
    Future<Void> shutdown(long graceMs) {
        return inference.shutdown(graceMs, TimeUnit.MILLISECONDS);
    }

    void closeAdmin() {
        if (admin != null) {
            RouterRuntime.await(admin.close());
        }
    }
}
