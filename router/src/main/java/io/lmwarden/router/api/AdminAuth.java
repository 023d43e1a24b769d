package io.lmwarden.router.api;

import io.lmwarden.router.proxy.ApiErrors;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The admin token check: {@code Authorization: Bearer <token>}, the scheme in any case (RFC 9110
 * makes it case-insensitive), the token compared in constant time so response timing reveals
 * nothing of it. Without a configured token everyone is an admin of nothing secret: raw session
 * keys stay hidden all the same.
 */
public final class AdminAuth {

    private final Optional<byte[]> token;

    public AdminAuth(Optional<String> token) {
        this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    public boolean required() {
        return token.isPresent();
    }

    /** The request carries the configured token (false when none is configured). */
    public boolean isAdmin(String authorization) {
        if (token.isEmpty() || authorization == null || authorization.length() < 7
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, token.get());
    }

    public boolean isAdmin(RoutingContext rc) {
        return isAdmin(rc.request().getHeader(HttpHeaders.AUTHORIZATION));
    }

    /** A route handler: passes admins on, answers everyone else 401 (only when a token is configured). */
    public void require(RoutingContext rc) {
        if (!required() || isAdmin(rc)) {
            rc.next();
            return;
        }
        rc.response().setStatusCode(401).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .putHeader("WWW-Authenticate", "Bearer")
                .end(ApiErrors.body(null, 401, rc.request().path() + " needs 'Authorization: Bearer <admin token>' (adminToken)"));
    }
}
