package io.lmwarden.router.edge;

import io.lmwarden.router.proxy.ApiErrors;
import io.lmwarden.common.api.ApiDialect;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.Set;

/**
 * The client-facing errors no endpoint handler sees, each in the API shape of the path it was sent
 * to: protocol-level 400, 414 and 431 (Vert.x's own have no body), 405 with {@code Allow}, 404, 408
 * for a body that does not arrive in time, 415 for a compressed body.
 */
public final class ClientErrors {

    /** Methods per fixed path, for 405's {@code Allow}; paths under a prefix ending in '/' match by prefix. */
    private final Map<String, String> allowed;
    /** Methods per path pattern (a whole-path regular expression), tried after the fixed paths and before the prefixes. */
    private final Map<Pattern, String> allowedPatterns;

    public ClientErrors(Map<String, String> allowed, Map<Pattern, String> allowedPatterns) {
        this.allowed = Map.copyOf(allowed);
        this.allowedPatterns = Map.copyOf(allowedPatterns);
    }

    /** For {@code HttpServer#invalidRequestHandler}: the request line or headers could not be decoded. */
    public static void invalidRequest(HttpServerRequest req) {
        Throwable cause = req.decoderResult() == null ? null : req.decoderResult().cause();
        String kind = cause == null ? "" : cause.getClass().getSimpleName();
        int status;
        String message;
        if (kind.equals("TooLongHttpLineException") || kind.equals("TooLongUriException")) {
            status = 414;
            message = "request line too long; the router accepts request targets up to 4096 bytes";
        } else if (kind.equals("TooLongHttpHeaderException") || kind.equals("TooLongHeaderException")) {
            status = 431;
            message = "request headers too large; the router accepts up to 8192 bytes of headers";
        } else {
            status = 400;
            message = "malformed HTTP request" + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage());
        }
        ApiDialect dialect = safeDialect(req);
        req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaders.CONNECTION, "close")
                .end(ApiErrors.body(dialect, status, message))
                .onComplete(ar -> req.connection().close());
    }

    private static ApiDialect safeDialect(HttpServerRequest req) {
        try {
            return ApiDialect.forPath(req.path());
        } catch (RuntimeException e) {
            return null;
        }
    }

    public void notFound(RoutingContext rc) {
        send(rc, 404, "no route for " + rc.request().method() + " " + rc.request().path()
                + "; the router serves /v1/chat/completions, /v1/completions, /v1/responses, /v1/messages, /v1/models and /api/*");
    }

    public void methodNotAllowed(RoutingContext rc) {
        String allow = allowFor(rc.request().path());
        if (allow == null) {
            // Vert.x says 405 whenever some route matched the path, and the router's first handlers match every path.
            notFound(rc);
            return;
        }
        rc.response().putHeader(HttpHeaders.ALLOW, allow);
        send(rc, 405, rc.request().method() + " is not allowed on " + rc.request().path() + "; use " + allow);
    }

    private String allowFor(String path) {
        String exact = allowed.get(path);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<Pattern, String> e : allowedPatterns.entrySet()) {
            if (e.getKey().matcher(path).matches()) {
                return e.getValue();
            }
        }
        for (Map.Entry<String, String> e : allowed.entrySet()) {
            if (e.getKey().endsWith("/") && path.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }

    /** Before the body is read: a compressed body would be forwarded as is and the engine would fail on it. */
    public static void refuseEncodedBody(RoutingContext rc) {
        String encoding = rc.request().getHeader(HttpHeaders.CONTENT_ENCODING);
        if (encoding != null && !IDENTITY.contains(encoding.trim().toLowerCase(Locale.ROOT))) {
            send(rc, 415, "Content-Encoding '" + encoding + "' is not supported; send the JSON body uncompressed");
            return;
        }
        rc.next();
    }

    private static final Set<String> IDENTITY = Set.of("", "identity");

    /** Answers 408 and closes when the body has not arrived whole in time: slow or short bodies hold nothing for long. */
    public static void bodyDeadline(RoutingContext rc, Duration timeout) {
        if (rc.request().isEnded()) {
            rc.next();
            return;
        }
        long timer = rc.vertx().setTimer(Math.max(1, timeout.toMillis()), id -> {
            if (!rc.request().isEnded() && !rc.response().headWritten()) {
                rc.response().putHeader(HttpHeaders.CONNECTION, "close");
                send(rc, 408, "the request body did not arrive whole within " + timeout.toMillis()
                        + " ms (bodyTimeout); check its Content-Length and send it at once");
                rc.response().closeHandler(v -> { });
                rc.request().connection().close();
            }
        });
        rc.addEndHandler(v -> rc.vertx().cancelTimer(timer));
        rc.next();
    }

    private static void send(RoutingContext rc, int status, String message) {
        if (rc.response().headWritten() || rc.response().ended()) {
            return;
        }
        rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(ApiErrors.body(ApiDialect.forPath(rc.request().path()), status, message));
    }
}
