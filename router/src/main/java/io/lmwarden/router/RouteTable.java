package io.lmwarden.router;

import io.lmwarden.router.api.AdminAuth;
import io.lmwarden.router.api.DrainApi;
import io.lmwarden.router.api.PolicyApi;
import io.lmwarden.router.api.Probes;
import io.lmwarden.router.api.ReplicasApi;
import io.lmwarden.router.api.SessionsApi;
import io.lmwarden.router.api.StatsApi;
import io.lmwarden.router.api.WebUi;
import io.lmwarden.router.config.ServerSettings;
import io.lmwarden.router.edge.ClientConnections;
import io.lmwarden.router.edge.ClientErrors;
import io.lmwarden.router.proxy.ApiErrors;
import io.lmwarden.router.proxy.PassThrough;
import io.lmwarden.router.proxy.ProxyHandler;
import io.lmwarden.router.proxy.RouterTimestamps;
import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Every HTTP route of the router, and the methods each allows: a wrong method's 405 names them in {@code Allow}
 * from the same declarations. The inference port serves the APIs and the probes; the admin API and the UI are
 * there too unless {@code adminPort} gives them a port of their own (the probes answer on both).
 */
final class RouteTable {

    /** The admin API's handlers. */
    record Admin(AdminAuth auth, Probes probes, PolicyApi policy, SessionsApi sessions, StatsApi stats, ReplicasApi replicas,
                 DrainApi drains) {
    }

    /** {@code PUT /api/policy} carries a few fields. */
    private static final long POLICY_BODY_LIMIT = 64 * 1024;

    private final Router inference;
    private final Router admin;
    private final Map<String, String> allowed = new LinkedHashMap<>();
    private final Map<Pattern, String> allowedPatterns = new LinkedHashMap<>();

    private RouteTable(Router inference, Router admin) {
        this.inference = inference;
        this.admin = admin;
    }

    static RouteTable build(Vertx vertx, ServerSettings server, ClientConnections connections, ProxyHandler proxy, PassThrough passThrough,
                            Admin api) {
        Router inference = Router.router(vertx);
        boolean ownAdminPort = server.adminPort().isPresent();
        RouteTable t = new RouteTable(inference, ownAdminPort ? Router.router(vertx) : inference);
        t.everyRequest(server, connections);
        t.inferenceApis(server, proxy, passThrough);
        for (Router r : t.routers()) {
            t.probes(r, api.probes());
        }
        t.adminApi(api);
        ClientErrors errors = new ClientErrors(t.allowed, t.allowedPatterns);
        for (Router r : t.routers()) {
            r.errorHandler(404, errors::notFound);
            r.errorHandler(405, errors::methodNotAllowed);
        }
        return t;
    }

    Router inference() {
        return inference;
    }

    /** The admin port's router; the inference one when there is no admin port. */
    Router admin() {
        return admin;
    }

    private List<Router> routers() {
        return admin == inference ? List.of(inference) : List.of(inference, admin);
    }

    /** First for every request to the inference port: its arrival time, the connection's bookkeeping, the body deadline, no compressed bodies. */
    private void everyRequest(ServerSettings server, ClientConnections connections) {
        inference.route().handler(rc -> {
            rc.put(RouterTimestamps.RECEIVED_AT_NANOS, System.nanoTime());
            HttpConnection conn = rc.request().connection();
            connections.requestStarted(conn);
            rc.addEndHandler(v -> connections.requestEnded(conn));
            ClientErrors.bodyDeadline(rc, server.bodyTimeout());
        });
        inference.route().method(HttpMethod.POST).method(HttpMethod.PUT).handler(ClientErrors::refuseEncodedBody);
    }

    private void inferenceApis(ServerSettings server, ProxyHandler proxy, PassThrough passThrough) {
        BodyHandler body = BodyHandler.create(false).setBodyLimit(server.bodyLimitBytes());
        for (ApiDialect dialect : ApiDialect.values()) {
            Handler<RoutingContext> handler = dialect.generates() ? rc -> proxy.handle(rc, dialect) : rc -> passThrough.handle(rc, dialect);
            route(inference, dialect.path(), HttpMethod.POST).handler(body).handler(handler)
                    .failureHandler(rc -> failure(rc, dialect, server.bodyLimitBytes()));
        }
        route(inference, "/v1/models", HttpMethod.GET, HttpMethod.HEAD).handler(passThrough::handle);
        route(inference, "/tokenize", HttpMethod.POST).handler(body).handler(passThrough::handle);
    }

    private void probes(Router r, Probes probes) {
        route(r, "/healthz", HttpMethod.GET, HttpMethod.HEAD).handler(probes::healthz);
        route(r, "/readyz", HttpMethod.GET, HttpMethod.HEAD).handler(probes::readyz);
        route(r, "/metrics", HttpMethod.GET, HttpMethod.HEAD).handler(probes::metrics);
    }

    /** The admin API under {@code /api}, behind the token when one is set, and the UI. */
    private void adminApi(Admin api) {
        // Vert.x wants a BodyHandler ahead of handlers that might pause the request: so ahead of the token check.
        admin.put("/api/policy").handler(BodyHandler.create(false).setBodyLimit(POLICY_BODY_LIMIT));
        admin.route("/api/*").handler(api.auth()::require);
        allowed.put("/api/", "GET, HEAD");
        route(admin, "/api/replicas", HttpMethod.GET, HttpMethod.HEAD).handler(api.replicas()::get);
        // A data-parallel rank's id has a '/' in it (sim-0/rank-1): a pattern, not a ':id' segment, so it is reachable.
        admin.routeWithRegex(HttpMethod.POST, DrainApi.PATH).handler(api.drains()::drain);
        admin.routeWithRegex(HttpMethod.DELETE, DrainApi.PATH).handler(api.drains()::undrain);
        allowedPatterns.put(Pattern.compile(DrainApi.PATH), "POST, DELETE");
        route(admin, "/api/stats", HttpMethod.GET, HttpMethod.HEAD).handler(api.stats()::get);
        route(admin, "/api/sessions", HttpMethod.GET, HttpMethod.HEAD).handler(api.sessions()::list);
        route(admin, "/api/sessions/:key", HttpMethod.GET, HttpMethod.HEAD).handler(api.sessions()::one);
        route(admin, "/api/policy", HttpMethod.GET, HttpMethod.HEAD).handler(api.policy()::get);
        route(admin, "/api/policy", HttpMethod.PUT).handler(api.policy()::put);
        WebUi.mount(admin);
    }

    /** A route, with its methods added to those its path allows (paths under {@code /api/} share the prefix's entry). */
    private Route route(Router r, String path, HttpMethod... methods) {
        Route route = r.route(path);
        for (HttpMethod m : methods) {
            route.method(m);
        }
        if (!path.startsWith("/api/") || path.equals("/api/policy")) {
            String these = Arrays.stream(methods).map(HttpMethod::name).collect(Collectors.joining(", "));
            allowed.merge(path, these, (a, b) -> a.contains(b) ? a : a + ", " + b);
        }
        return route;
    }

    private static void failure(RoutingContext rc, ApiDialect dialect, long bodyLimitBytes) {
        int status = rc.statusCode() > 0 ? rc.statusCode() : 500;
        String message = status == 413
                ? "request body exceeds the router's limit of " + bodyLimitBytes + " bytes (bodyLimit)"
                : "router error: " + (rc.failure() == null ? "status " + status : rc.failure().getMessage());
        if (!rc.response().headWritten()) {
            rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(ApiErrors.body(dialect, status, message));
        }
    }
}
