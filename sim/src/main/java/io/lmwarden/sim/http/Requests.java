package io.lmwarden.sim.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/** Request parsing and error replies shared by the endpoints. */
final class Requests {
    private Requests() {
    }

    /** The body as a JSON object, or null after answering 400. */
    static JsonNode parseObject(RoutingContext ctx, ApiStyle style) {
        String text = ctx.body() == null ? null : ctx.body().asString();
        if (text == null || text.isBlank()) {
            error(ctx, style, 400, "The request body is empty; send a JSON object", null);
            return null;
        }
        try {
            JsonNode node = Json.MAPPER.readTree(text);
            if (node == null || !node.isObject()) {
                error(ctx, style, 400, "The request body must be a JSON object", null);
                return null;
            }
            return node;
        } catch (JsonProcessingException e) {
            error(ctx, style, 400, "Invalid JSON in the request body: " + e.getOriginalMessage()
                    + " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")",
                    null);
            return null;
        }
    }

    /** False (after answering) when the body names a model this replica does not serve under any of its names. */
    static boolean checkModel(RoutingContext ctx, ApiStyle style, JsonNode body, List<String> served, boolean required) {
        JsonNode model = body.get("model");
        if (model == null || model.isNull()) {
            if (required) {
                error(ctx, style, 400, "model: Field required", "model");
                return false;
            }
            return true;
        }
        if (!model.isTextual() || !served.contains(model.asText())) {
            error(ctx, style, 404, "The model `" + model.asText() + "` does not exist.", "model");
            return false;
        }
        return true;
    }

    static void error(RoutingContext ctx, ApiStyle style, int status, String message, String param) {
        if (ctx.response().ended() || ctx.response().closed()) {
            return;
        }
        ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
                .end(style.errorBody(status, message, param));
    }
}
