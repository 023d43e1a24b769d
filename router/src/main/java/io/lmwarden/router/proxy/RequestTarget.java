package io.lmwarden.router.proxy;

import io.vertx.core.http.HttpServerRequest;

/**
 * The request target to send upstream, always in origin form ({@code /path?query}): a client may
 * send the absolute form ({@code POST http://host/v1/messages}), which appended to a replica's URL
 * would name no valid address.
 */
final class RequestTarget {

    private RequestTarget() {
    }

    static String originForm(HttpServerRequest request) {
        String path = request.path();
        if (path == null || path.isEmpty() || path.charAt(0) != '/') {
            path = "/" + (path == null ? "" : path);
        }
        String query = request.query();
        return query == null || query.isEmpty() ? path : path + "?" + query;
    }
}
