package io.lmwarden.router.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lmwarden.router.proxy.ApiErrors;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;

/** How the admin API answers: a JSON body, or an error in the OpenAI shape (the admin API has no API of its own). */
final class JsonReplies {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonReplies() {
    }

    static void send(RoutingContext rc, int status, Object value) {
        try {
            rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(MAPPER.writeValueAsString(value));
        } catch (IOException e) {
            rc.fail(e);
        }
    }

    static void error(RoutingContext rc, int status, String message) {
        rc.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(ApiErrors.body(null, status, message));
    }

    /** Three decimals: what the UI shows. */
    static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
